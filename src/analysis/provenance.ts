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
  // One pass over the records, a set per field (the analysis reads 100,000 records at a time).
  const seen = VERSION_FIELDS.map(() => new Set<string | null>())
  const specs = new Set<string>()
  for (const record of records) {
    specs.add(record.specSha256)
    const versions = record.versions as Record<string, unknown> | undefined
    VERSION_FIELDS.forEach((field, index) => {
      const value = versions?.[field]
      seen[index]!.add(typeof value === 'string' ? value : null)
    })
  }
  const versions = Object.fromEntries(VERSION_FIELDS.map((field, index) => [field, distinct([...seen[index]!])])) as Record<VersionField, (string | null)[]>
  return { specSha256: specs.size === 1 ? [...specs][0]! : null, versions }
}
