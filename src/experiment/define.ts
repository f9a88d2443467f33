import type { ExperimentInput } from './schema.ts'

/**
 * Declares an experiment in `tasks/<set>/experiment.ts`. Returns its input
 * unchanged: parsing happens when the experiment is loaded, so errors can name
 * the file and the field.
 *
 * @example
 * export default defineExperiment({ name: 'examples', agent: { kind: 'noop' }, arms: {...}, control: 'noop', budgetUsd: 0.01 })
 */
export function defineExperiment<const T extends ExperimentInput>(input: T): T {
  return input
}
