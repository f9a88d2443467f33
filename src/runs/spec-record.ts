import { z } from 'zod'
import { DataError, describeSchemaIssues } from '../errors.ts'
import type { SpecManifest } from '../experiment/hash.ts'
import { ChangeLogEntrySchema, type ChangeLogEntry } from '../experiment/schema.ts'

/**
 * `spec.json` beside runs.jsonl: the current spec (its hash, its manifest, its
 * change log, where it was declared) and, once the spec changed under recorded
 * runs, every earlier spec in `earlier`, oldest first, each as it was recorded.
 * It only grows: an earlier spec is moved, never dropped, so the runs recorded
 * under it can always be named and set aside. Fields other writers add (the
 * plan) are kept as they are.
 */

const ManifestSchema = z.looseObject({
  experiment: z.record(z.string(), z.unknown()),
  files: z.record(z.string(), z.string()),
})

/** One spec as spec.json keeps it. */
const SpecEntrySchema = z.looseObject({
  specSha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256'),
  manifest: ManifestSchema,
  /** The change log as it stood when this spec was recorded (absent in spec.json files written before change logs). */
  changeLog: z.array(ChangeLogEntrySchema).optional(),
  /** The experiment file (relative to the project root) and its export. */
  source: z.strictObject({ file: z.string(), exportName: z.string() }).optional(),
  /** Tasks fixed on or before the experiment's `trainingCutoff` (present when it names one). */
  contamination: z
    .strictObject({
      trainingCutoff: z.string(),
      flagged: z.array(z.strictObject({ task: z.string(), fixDate: z.string() })),
      undated: z.array(z.string()),
    })
    .optional(),
})

/** An earlier spec: as it was recorded, and when it was replaced. */
const EarlierSpecSchema = SpecEntrySchema.extend({ replacedAt: z.string().optional() })

export const RecordedSpecSchema = SpecEntrySchema.extend({
  earlier: z.array(EarlierSpecSchema).optional(),
})

/** spec.json, parsed. */
export type RecordedSpec = z.infer<typeof RecordedSpecSchema> & { readonly manifest: SpecManifest }
/** One earlier spec of spec.json. */

/** Parses spec.json's text; a `DataError` names the file and the field otherwise. */
export function parseRecordedSpec(text: string, file: string): RecordedSpec {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new DataError(`${file}: not valid JSON (${(error as Error).message})`)
  }
  const parsed = RecordedSpecSchema.safeParse(value)
  if (!parsed.success) {
    throw new DataError(`${file}: ${describeSchemaIssues(parsed.error.issues)}`)
  }
  return parsed.data as RecordedSpec
}

/** The change log spec.json has seen: the current spec's (every earlier spec's log is a prefix of it). */
export function recordedChangeLog(recorded: RecordedSpec | undefined): readonly ChangeLogEntry[] {
  return recorded?.changeLog ?? []
}

/** Every spec hash spec.json knows, the current one first. */
export function knownSpecHashes(recorded: RecordedSpec | undefined): string[] {
  if (recorded === undefined) return []
  return [recorded.specSha256, ...(recorded.earlier ?? []).map((spec) => spec.specSha256).reverse()]
}

/** What the writer knows of the spec being run now. */
export interface CurrentSpec {
  readonly specSha256: string
  readonly manifest: SpecManifest
  readonly changeLog: readonly ChangeLogEntry[]
  readonly source?: { readonly file: string; readonly exportName: string }
  /** Other fields the writer keeps at the top (e.g. the plan). */
  readonly [field: string]: unknown
}

/**
 * The spec.json to write now, or undefined when the recorded one already
 * says it all. Before any run is recorded the current spec simply replaces
 * the recorded one (nothing was measured under it). Once runs are recorded a
 * new spec hash moves the recorded spec, whole, into `earlier`; the same hash
 * with a longer change log only updates the log. Callers check the change log
 * (`checkChangeLog`) first.
 */
export function reviseSpecRecord(recorded: RecordedSpec | undefined, current: CurrentSpec, recordedRuns: number, now: Date): RecordedSpec | undefined {
  const top = { ...current, changeLog: [...current.changeLog] } as unknown as RecordedSpec
  if (recorded === undefined) return top
  const { earlier, ...recordedTop } = recorded
  if (recorded.specSha256 === current.specSha256) {
    // A spec.json from before the plan was kept gets the plan: it is a function of the hashed spec, so it adds nothing not already fixed.
    const addPlan = (recorded as { plan?: unknown }).plan === undefined && current.plan !== undefined
    const sameExtras = recorded.source !== undefined && JSON.stringify(recorded.contamination) === JSON.stringify(current.contamination) && !addPlan
    if (JSON.stringify(recorded.changeLog ?? []) === JSON.stringify(current.changeLog) && sameExtras) return undefined
    return {
      ...recordedTop,
      ...(recorded.source === undefined && current.source !== undefined ? { source: current.source } : {}),
      ...(current.contamination === undefined ? {} : { contamination: current.contamination }),
      ...(addPlan ? { plan: current.plan } : {}),
      changeLog: [...current.changeLog],
      ...(earlier === undefined ? {} : { earlier }),
    } as RecordedSpec
  }
  if (recordedRuns === 0) return { ...top, ...(earlier === undefined ? {} : { earlier }) }
  return { ...top, earlier: [...(earlier ?? []), { ...recordedTop, replacedAt: now.toISOString() }] }
}
