import { SpecError } from '../errors.ts'
import type { Sequential } from './schema.ts'

/**
 * The looks of a sequential design as task counts: fractions of the planned
 * tasks rounded up (at least one task, strictly increasing), or the counts as
 * given, whose last must be every planned task. The analysis takes look k
 * when every run of the first count[k] tasks (the plan's task order) is
 * recorded; the plugin runs those tasks' block before the next. A design
 * whose looks cannot be placed is a SpecError naming the field.
 */
export function lookTaskCounts(design: Pick<Sequential, 'looks'>, plannedTasks: number): number[] {
  const fractions = design.looks.every((look) => look <= 1)
  const looks = design.looks.map((look) => (fractions ? Math.max(1, Math.ceil(look * plannedTasks - 1e-9)) : look))
  looks.forEach((tasks, i) => {
    if (i > 0 && tasks <= looks[i - 1]!) {
      throw new SpecError(
        `decision.sequential.looks: looks ${i} and ${i + 1} fall on the same task count (${tasks} of ${plannedTasks} planned tasks): take fewer looks or more tasks`,
      )
    }
  })
  if (looks.at(-1) !== plannedTasks) {
    throw new SpecError(
      `decision.sequential.looks: the last look is at ${looks.at(-1)} tasks, but the plan has ${plannedTasks}: end the looks at ${plannedTasks} (or 1, as a fraction)`,
    )
  }
  return looks
}

/** The 1-based block of the task at `index` in the plan's task order: the first look whose tasks include it. */
export function lookBlock(counts: readonly number[], index: number): number {
  const block = counts.findIndex((tasks) => index < tasks)
  return block < 0 ? counts.length : block + 1
}
