import type { RecordedRun } from '../runs/record.ts'

/** The version fields every record carries (DESIGN's `versions`). */
export const VERSION_FIELDS = ['harness', 'agent', 'model', 'tool', 'node', 'sandbox', 'testRunner'] as const
export type VersionField = (typeof VERSION_FIELDS)[number]

/** Where a report's numbers come from: the spec they were recorded under, and what ran them (the sandbox's own summary is `sandbox-summary.ts`). */
export interface Provenance {
  readonly specSha256: string | null
  /**
   * Each version field's distinct values over the analysed runs, sorted (null
   * where a run had none: a built-in agent's model, an arm without a tool; a
   * record from before the field existed counts as null). A resume refuses to
   * mix harness, agent and model versions, so those normally hold one value;
   * `tool` holds one per arm that has a tool.
   */
  readonly versions: Readonly<Record<VersionField, readonly (string | null)[]>>
}

function distinct(values: readonly (string | null)[]): (string | null)[] {
  const unique = [...new Set(values)]
  return unique.sort((a, b) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1))
}

/** The provenance of the given runs (pure: the same records, the same result). */
export function provenance(records: readonly RecordedRun[]): Provenance {
  const versions = Object.fromEntries(
    VERSION_FIELDS.map((field) => [
      field,
      distinct(
        records.map((record) => {
          const value = (record.versions as Record<string, unknown> | undefined)?.[field]
          return typeof value === 'string' ? value : null
        }),
      ),
    ]),
  ) as Record<VersionField, (string | null)[]>
  const specs = [...new Set(records.map((record) => record.specSha256))]
  return { specSha256: specs.length === 1 ? specs[0]! : null, versions }
}
