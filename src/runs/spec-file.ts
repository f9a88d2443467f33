import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { DataError } from '../errors.ts'
import type { SpecManifest } from '../experiment/hash.ts'
import { caseName, type PlannedRun } from './plan.ts'

/**
 * `spec.json`, kept beside runs.jsonl: the spec hash, its per-file manifest
 * and the plan (every planned (task, arm, seed) with its order). Every reader
 * that judges completeness (the reporter, `analyze`, `power`, `publish`) takes
 * the plan from here, never from the records, so a task whose every run was
 * deleted, or a shard never merged, is still seen as missing.
 */
export const SPEC_FILE = 'spec.json'

/** Where spec.json lives for an output folder. */
export function specFilePath(outDir: string): string {
  return path.join(outDir, SPEC_FILE)
}

const PlannedRunSchema = z.strictObject({
  task: z.string().min(1),
  arm: z.string().min(1),
  seed: z.number().int().positive(),
  order: z.number().int().nonnegative(),
})

const SpecFileSchema = z.looseObject({
  specSha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256'),
  manifest: z.looseObject({
    experiment: z.record(z.string(), z.unknown()),
    files: z.record(z.string(), z.string()),
  }),
  plan: z.array(PlannedRunSchema).optional(),
})

/** spec.json as read. */
export interface SpecFile {
  readonly file: string
  readonly specSha256: string
  readonly manifest: SpecManifest
  /** The plan in order; null when the file was written by a task-outcome that kept none (before the plan was recorded). */
  readonly plan: readonly PlannedRun[] | null
}

/** What the writer keeps. */
export interface SpecFileContent {
  readonly specSha256: string
  readonly manifest: SpecManifest
  readonly plan: readonly PlannedRun[]
}

/** spec.json's text: hash, manifest, plan (orders 0..N−1 in plan order), two-space JSON, a final newline. */
export function specFileText(content: SpecFileContent): string {
  const plan = content.plan.map(({ task, arm, seed, order }) => ({ task, arm, seed, order }))
  return `${JSON.stringify({ specSha256: content.specSha256, manifest: content.manifest, plan }, null, 2)}\n`
}

function checkPlan(plan: readonly PlannedRun[], file: string): void {
  const seen = new Set<string>()
  plan.forEach((run, index) => {
    const key = `${run.task}\u0000${run.arm}\u0000${run.seed}`
    if (seen.has(key)) throw new DataError(`${file}: field plan.${index}: ${caseName(run)} is planned twice; the plan is corrupt (restore spec.json from version control or a backup)`)
    seen.add(key)
    if (run.order !== index) throw new DataError(`${file}: field plan.${index}.order: ${run.order}, expected ${index}; the plan is corrupt (restore spec.json)`)
  })
}

/**
 * Reads spec.json beside the records, if there is one. A file that is not
 * JSON, or lacks a field, is a `DataError` naming the file and the field; a
 * plan with a run twice or out of order is one too. `plan` is null for a
 * spec.json written before the plan was kept (see `requirePlan`).
 */
export function readSpecFile(outDir: string): SpecFile | undefined {
  const file = specFilePath(outDir)
  if (!existsSync(file)) return undefined
  let value: unknown
  try {
    value = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new DataError(`${file}: not valid JSON (${(error as Error).message})`)
  }
  const parsed = SpecFileSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new DataError(`${file}: field ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
  }
  const plan = parsed.data.plan ?? null
  if (plan !== null) checkPlan(plan, file)
  return { file, specSha256: parsed.data.specSha256, manifest: parsed.data.manifest as SpecManifest, plan }
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
  if (specFile.plan === null) throw new DataError(noPlanMessage(specFile.file, String(specFile.manifest.experiment.name ?? '<experiment>')))
  return { specFile, plan: specFile.plan }
}

/**
 * Writes spec.json for a prepared experiment: once (never over a file that
 * keeps a plan). A spec.json that an older task-outcome wrote without a plan
 * is given the plan, when its spec hash is this one: the plan is a function
 * of the hashed spec (tasks, arms, seeds, order seed), so adding it adds
 * nothing that was not already fixed; the hash and manifest are kept as they
 * were. Written to a temporary file and renamed, so a crash leaves the old file.
 * Returns what the folder's spec.json now says.
 */
export function writeSpecFile(outDir: string, content: SpecFileContent): SpecFile {
  const existing = readSpecFile(outDir)
  const file = specFilePath(outDir)
  if (existing === undefined) {
    writeFileSync(file, specFileText(content), { flag: 'wx' })
  } else if (existing.plan === null && existing.specSha256 === content.specSha256) {
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, specFileText({ ...content, manifest: existing.manifest }))
    renameSync(temporary, file)
  } else {
    return existing
  }
  return readSpecFile(outDir)!
}
