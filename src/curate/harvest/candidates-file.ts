import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { ProblemsError, schemaProblems, type Problem } from '../../errors.ts'
import { readRenamedField } from '../../tasks/metadata.ts'
import { buildRule, type HarvestRule } from './rule.ts'

/**
 * The candidates file harvest writes and select reads: the rule that was
 * applied, every candidate with its oracle, and every commit turned away with
 * its reason. It holds no timestamps, so harvesting the same history twice
 * gives the same file (unless a test is flaky).
 */

const commitId = z.string().regex(/^[0-9a-f]{40}$/, 'a full 40-hex commit id')
const ids = z.array(z.string().min(1))

/** One candidate task: the fix, its parent, its files and its oracle (FAIL_TO_PASS / PASS_TO_PASS ids). */
export const CandidateSchema = z.strictObject({
  fix: commitId,
  base: commitId,
  date: z.string(),
  subject: z.string(),
  gold_files: ids.min(1),
  test_files: ids.min(1),
  FAIL_TO_PASS: ids.min(1),
  PASS_TO_PASS: ids,
  not_passing_after: ids,
  notes: z.array(z.string()),
  /** The dependency recipe its parent's lockfile asked for (`--prepare auto`), which `select` writes into the task's `dependencies`; absent: the file's, or none. */
  dependencies: z.strictObject({ prepare: z.string().min(1), inputs: z.array(z.string().min(1)).min(1), mount: z.string().min(1) }).optional(),
  /** The harvest log, relative to the candidates file's folder. */
  log: z.string(),
})
/** One candidate task as the candidates file holds it. */
export type Candidate = z.infer<typeof CandidateSchema>

/** A commit that passed the rule's file gates but was dropped while harvesting, with the reason. */
export const DroppedSchema = z.strictObject({
  fix: commitId,
  date: z.string(),
  subject: z.string(),
  reason: z.string(),
  log: z.string(),
})
/** A dropped commit. */

/** A commit whose subject matched but which a date or file gate turned away, with the reason. */
export const RejectedSchema = z.strictObject({
  fix: commitId,
  date: z.string(),
  subject: z.string(),
  reason: z.string(),
})
/** A rejected commit. */

/** The whole candidates file (strict: an unknown key is an error). */
export const CandidatesFileSchema = z.strictObject({
  format: z.literal(1),
  /** The repository, relative to the candidates file's folder (a folder or a git bundle). */
  repo: z.string().min(1),
  /** The revision whose history was scanned. */
  rev: z.string().min(1),
  rule: z.strictObject({
    subject: z.string(),
    since: z.string().nullable(),
    source: z.array(z.string()).min(1),
    tests: z.array(z.string()).min(1),
    max_source_files: z.number().int().min(1),
  }),
  test_command: z.string().min(1),
  /** The dependency folder the tests ran with (`--prepare`), which `select` writes into each task's `dependencies`; absent: none. */
  dependencies: z.strictObject({ prepare: z.string().min(1), inputs: z.array(z.string().min(1)).min(1), mount: z.string().min(1) }).optional(),
  /** Commits read in the one pass over the history. */
  scanned: z.number().int().min(0),
  /** Commits whose subject matched the rule. */
  matched: z.number().int().min(0),
  /** Oldest first. */
  candidates: z.array(CandidateSchema),
  /** Passed the rule's file gates but were dropped while harvesting (no FAIL_TO_PASS test, no results). */
  dropped: z.array(DroppedSchema),
  /** The subject matched, a date or file gate did not. */
  rejected: z.array(RejectedSchema),
})
/** The candidates file's contents. */
export type CandidatesFile = z.infer<typeof CandidatesFileSchema>

/** A candidates file as read: its contents, where it is, and the repository's absolute path. */
export interface LoadedCandidates {
  readonly file: string
  readonly data: CandidatesFile
  readonly repo: string
}

/** Reads and validates a candidates file, naming every bad field. */
export async function readCandidatesFile(file: string): Promise<LoadedCandidates> {
  const absolute = path.resolve(file)
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(absolute, 'utf8'))
  } catch (error) {
    const message = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file: run `task-outcome harvest --out` first' : `not valid JSON: ${(error as Error).message}`
    throw new ProblemsError('The candidates file cannot be read:', [{ file, message }])
  }
  const parsed = CandidatesFileSchema.safeParse(readRenamedField(raw, file, 'toolchain', 'dependencies'))
  if (!parsed.success) {
    const problems: Problem[] = schemaProblems(parsed.error.issues).map((problem) => ({ file, ...problem }))
    throw new ProblemsError('The candidates file is not valid:', problems)
  }
  return { file: absolute, data: parsed.data, repo: path.resolve(path.dirname(absolute), parsed.data.repo) }
}

/** The candidates file's text: two-space JSON with a final newline. */
export function formatCandidatesFile(data: CandidatesFile): string {
  return `${JSON.stringify(CandidatesFileSchema.parse(data), null, 2)}\n`
}

/** A path relative to a folder, with `/` separators (as stored in JSON files). */
export function relativePosix(from: string, to: string): string {
  return path.relative(from, to).split(path.sep).join('/') || '.'
}

/** A rule as the candidates file records it. */
export function ruleRecord(rule: HarvestRule): CandidatesFile['rule'] {
  return {
    subject: rule.subject.source,
    since: rule.since === null ? null : rule.since.toISOString(),
    source: [...rule.sourceGlobs],
    tests: [...rule.testGlobs],
    max_source_files: rule.maxSourceFiles,
  }
}

/** The rule a candidates file records, ready to harvest with again. */
export function ruleFromRecord(record: CandidatesFile['rule']): HarvestRule {
  return buildRule({ subject: record.subject, since: record.since, source: record.source, tests: record.tests, maxSourceFiles: record.max_source_files })
}
