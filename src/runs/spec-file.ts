import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { DataError, describeSchemaIssues } from '../errors.ts'
import { writeFileAtomic } from '../shared/atomic-write.ts'
import type { PlannedRun } from './plan.ts'
import { parseRecordedSpec, type RecordedSpec } from './spec-record.ts'
import { runLabel } from '../shared/run-label.ts'

/**
 * The plan in `spec.json`, kept beside runs.jsonl: every planned (task, arm,
 * seed) with its order, written with the spec it belongs to (see
 * `reviseSpecRecord`). Every reader that judges completeness (the reporter,
 * `analyze`, `power`, `publish`) takes the plan from here, never from the
 * records, so a task whose every run was deleted, or a shard never merged,
 * is still seen as missing.
 */

const PlanSchema = z.array(
  z.strictObject({
    task: z.string().min(1),
    arm: z.string().min(1),
    seed: z.number().int().positive(),
    order: z.number().int().nonnegative(),
  }),
)

/** spec.json of an output folder: the one file every reader and the recorder take it from. */
export function specFilePath(outDir: string): string {
  return path.join(outDir, 'spec.json')
}

/** Reads spec.json beside runs.jsonl, if any: the current spec, its change log, and the earlier specs. */
export function readRecordedSpec(outDir: string): RecordedSpec | undefined {
  const file = specFilePath(outDir)
  if (!existsSync(file)) return undefined
  return parseRecordedSpec(readFileSync(file, 'utf8'), file)
}

/** Writes spec.json whole (the recorder's only write of it; see `reviseSpecRecord` for what it holds). */
export function writeSpecFile(outDir: string, spec: RecordedSpec): void {
  writeFileAtomic(specFilePath(outDir), `${JSON.stringify(spec, null, 2)}\n`)
}

/** spec.json as read, with its plan. */
export interface SpecFile {
  readonly file: string
  readonly recorded: RecordedSpec
  /** The current spec's plan in order; null when an older task-outcome wrote spec.json without one. */
  readonly plan: readonly PlannedRun[] | null
}

function checkPlan(plan: readonly PlannedRun[], file: string): void {
  const seen = new Set<string>()
  plan.forEach((run, index) => {
    const key = `${run.task}\u0000${run.arm}\u0000${run.seed}`
    if (seen.has(key))
      throw new DataError(`${file}: field plan.${index}: ${runLabel(run)} is planned twice; the plan is corrupt (restore spec.json from version control or a backup)`)
    seen.add(key)
    if (run.order !== index) throw new DataError(`${file}: field plan.${index}.order: ${run.order}, expected ${index}; the plan is corrupt (restore spec.json)`)
  })
}

/**
 * Reads spec.json beside the records, if there is one, and its plan. A file
 * that is not JSON, or lacks a field, is a `DataError` naming the file and
 * the field; a plan with a run twice or out of order is one too. `plan` is
 * null for a spec.json written before the plan was kept (see `requirePlan`).
 */
export function readSpecFile(outDir: string): SpecFile | undefined {
  const recorded = readRecordedSpec(outDir)
  if (recorded === undefined) return undefined
  const file = specFilePath(outDir)
  const raw = (recorded as { plan?: unknown }).plan
  if (raw === undefined) return { file, recorded, plan: null }
  const parsed = PlanSchema.safeParse(raw)
  if (!parsed.success) {
    throw new DataError(`${file}: ${describeSchemaIssues(parsed.error.issues.slice(0, 1), 'plan')}`)
  }
  checkPlan(parsed.data, file)
  return { file, recorded, plan: parsed.data }
}

/** The one line that says what to do with a spec.json that keeps no plan. */
export function noPlanMessage(file: string, experiment: string): string {
  return (
    `${file} keeps no plan (an older task-outcome wrote it), so completeness cannot be judged against the plan. ` +
    `Re-run the experiment (npx vitest run --project ${experiment}): every recorded run is skipped and the reporter adds the plan to spec.json; ` +
    'or pass --no-plan to analyse without it (the report then says completeness was not checked).'
  )
}

/**
 * The plan kept in an output folder's spec.json: what every completeness
 * judgement uses. A `DataError` with what to do when there is no spec.json, or
 * it keeps no plan.
 */
export function requirePlan(outDir: string): { readonly specFile: SpecFile; readonly plan: readonly PlannedRun[] } {
  const specFile = readSpecFile(outDir)
  if (specFile === undefined) {
    throw new DataError(
      `${specFilePath(outDir)}: no such file, so nothing says which runs were planned. Analyse the output folder the reporter wrote, ` +
        'or pass --no-plan to analyse the records alone (the report then says completeness was not checked).',
    )
  }
  if (specFile.plan === null) throw new DataError(noPlanMessage(specFile.file, String(specFile.recorded.manifest.experiment.name ?? '<experiment>')))
  return { specFile, plan: specFile.plan }
}
