import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { ProblemsError, SpecError, schemaProblems, type Problem } from '../../errors.ts'
import { RepositoryNameSchema, repositoryName } from '../../tasks/repository-name.ts'
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
  /** The repository it came from, by name: in a candidates file of several repositories only. */
  repository: RepositoryNameSchema.optional(),
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
  /** The repository it came from (several repositories only). */
  repository: RepositoryNameSchema.optional(),
})
/** A dropped commit. */

/** A commit whose subject matched but which a date or file gate turned away, with the reason. */
export const RejectedSchema = z.strictObject({
  fix: commitId,
  date: z.string(),
  subject: z.string(),
  reason: z.string(),
  /** The repository it came from (several repositories only). */
  repository: RepositoryNameSchema.optional(),
})
/** A rejected commit. */

const RuleRecordSchema = z.strictObject({
  subject: z.string(),
  since: z.string().nullable(),
  source: z.array(z.string()).min(1),
  tests: z.array(z.string()).min(1),
  max_source_files: z.number().int().min(1),
})

/** The rule a candidates file records. */
export type RuleRecord = z.infer<typeof RuleRecordSchema>

const DependenciesRecordSchema = z.strictObject({ prepare: z.string().min(1), inputs: z.array(z.string().min(1)).min(1), mount: z.string().min(1) })

/** What one repository's harvest records about how it was harvested: where, which history, the rule, the test command. */
const RepositoryHarvestFields = {
  /** The repository, relative to the candidates file's folder (a folder or a git bundle). */
  repo: z.string().min(1),
  /** The revision whose history was scanned. */
  rev: z.string().min(1),
  rule: RuleRecordSchema,
  test_command: z.string().min(1),
  /** The dependency folder the tests ran with (`--prepare`), which `select` writes into each task's `dependencies`; absent: none. */
  dependencies: DependenciesRecordSchema.optional(),
  /** Commits read in the one pass over the history. */
  scanned: z.number().int().min(0),
  /** Commits whose subject matched the rule. */
  matched: z.number().int().min(0),
}

/** The entries of a candidates file, each naming its repository in a file of several. */
const EntryLists = {
  /** Oldest first (per repository). */
  candidates: z.array(CandidateSchema),
  /** Passed the rule's file gates but were dropped while harvesting (no FAIL_TO_PASS test, no results). */
  dropped: z.array(DroppedSchema),
  /** The subject matched, a date or file gate did not. */
  rejected: z.array(RejectedSchema),
}

/** A candidates file of one repository (strict: an unknown key is an error): what harvest has always written. */
export const SingleRepositoryFileSchema = z.strictObject({
  format: z.literal(1),
  /** The repository's portable name (`harvest --name`); absent: the name of `repo`'s folder or bundle. */
  repository: RepositoryNameSchema.optional(),
  ...RepositoryHarvestFields,
  ...EntryLists,
})

/** One repository of a candidates file of several: its name and how it was harvested. */
export const HarvestedRepositorySchema = z.strictObject({ name: RepositoryNameSchema, ...RepositoryHarvestFields })
/** One repository of a candidates file of several. */
export type HarvestedRepository = z.infer<typeof HarvestedRepositorySchema>

/** A candidates file of several repositories (`harvest --append`): each entry's `repository` names one of `repositories`. */
export const MultiRepositoryFileSchema = z.strictObject({
  format: z.literal(1),
  repositories: z.array(HarvestedRepositorySchema).min(2),
  ...EntryLists,
})

/** The whole candidates file: one repository's (as before) or several's. */
export const CandidatesFileSchema = z.union([SingleRepositoryFileSchema, MultiRepositoryFileSchema])
/** The candidates file's contents. */
export type CandidatesFile = z.infer<typeof CandidatesFileSchema>
/** A candidates file of one repository. */
export type SingleRepositoryFile = z.infer<typeof SingleRepositoryFileSchema>

/** A repository of a loaded candidates file: its name, its absolute path, and how its candidates were harvested. */
export interface CandidateSource {
  readonly name: string
  /** Absolute path of the folder or bundle. */
  readonly repo: string
  readonly rev: string
  readonly rule: RuleRecord
  readonly test_command: string
  readonly dependencies?: z.infer<typeof DependenciesRecordSchema>
}

/** A candidates file as read: its contents, where it is, and its repositories (one, or several in harvest order). */
export interface LoadedCandidates {
  readonly file: string
  readonly data: CandidatesFile
  readonly sources: readonly CandidateSource[]
}

/** The repositories of a candidates file in harvest order, with `dir` the file's folder: a one-repository file's is named by `repository` or its folder. */
export function candidateSources(data: CandidatesFile, dir: string): CandidateSource[] {
  const entries: HarvestedRepository[] =
    'repositories' in data ? data.repositories : [{ ...withoutEntries(data), name: data.repository ?? repositoryName(path.resolve(dir, data.repo)) }]
  return entries.map(({ name, repo, rev, rule, test_command, dependencies }) => ({
    name,
    repo: path.resolve(dir, repo),
    rev,
    rule,
    test_command,
    ...(dependencies === undefined ? {} : { dependencies }),
  }))
}

function withoutEntries(data: SingleRepositoryFile): Omit<HarvestedRepository, 'name'> {
  const { repo, rev, rule, test_command, dependencies, scanned, matched } = data
  return { repo, rev, rule, test_command, ...(dependencies === undefined ? {} : { dependencies }), scanned, matched }
}

/** The repository a candidate (or dropped or rejected commit) of a loaded file came from. */
export function sourceOf(loaded: Pick<LoadedCandidates, 'sources'>, entry: { readonly repository?: string | undefined }): CandidateSource {
  return (entry.repository === undefined ? loaded.sources[0] : loaded.sources.find((source) => source.name === entry.repository))!
}

/** Every entry whose `repository` names no repository of the file (or, in a one-repository file, another one), and every repository named twice. */
function repositoryProblems(data: CandidatesFile, dir: string): Omit<Problem, 'file'>[] {
  const names = candidateSources(data, dir).map((source) => source.name)
  const problems: Omit<Problem, 'file'>[] = names
    .filter((name, i) => names.indexOf(name) !== i)
    .map((name) => ({ field: 'repositories', message: `"${name}" is named twice: give one of them another name (harvest --name)` }))
  const several = 'repositories' in data
  for (const list of ['candidates', 'dropped', 'rejected'] as const) {
    data[list].forEach((entry: { repository?: string | undefined }, i) => {
      if (entry.repository === undefined ? several : !names.includes(entry.repository)) {
        problems.push({
          field: `${list}.${i}.repository`,
          message: several ? `must name one of the file's repositories (${names.join(', ')})` : `names "${entry.repository}", but the file is of "${names[0]}" only`,
        })
      }
    })
  }
  return problems
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
  const several = typeof raw === 'object' && raw !== null && 'repositories' in raw
  const parsed = several ? MultiRepositoryFileSchema.safeParse(raw) : SingleRepositoryFileSchema.safeParse(readRenamedField(raw, file, 'toolchain', 'dependencies'))
  if (!parsed.success) {
    const problems: Problem[] = schemaProblems(parsed.error.issues).map((problem) => ({ file, ...problem }))
    throw new ProblemsError('The candidates file is not valid:', problems)
  }
  const dir = path.dirname(absolute)
  const problems = repositoryProblems(parsed.data, dir)
  if (problems.length > 0)
    throw new ProblemsError(
      'The candidates file is not valid:',
      problems.map((problem) => ({ file, ...problem })),
    )
  return { file: absolute, data: parsed.data, sources: candidateSources(parsed.data, dir) }
}

/**
 * The candidates file after `harvest --append`: `existing` (of one repository
 * or several) with `added` (one repository's fresh harvest, relative to the
 * same folder `dir`) after it, every entry naming its repository. Refuses a
 * repository name already in the file and a fix commit already in it (its
 * prompt and log are named by the commit), so nothing recorded is replaced.
 */
export function appendRepository(existing: CandidatesFile, added: SingleRepositoryFile, dir: string): CandidatesFile {
  const sources = candidateSources(existing, dir)
  const addedName = candidateSources(added, dir)[0]!.name
  if (sources.some((source) => source.name === addedName)) {
    throw new SpecError(`--append: the candidates file already holds a repository named "${addedName}": give this one another name with --name, or harvest into a new file`)
  }
  const fixes = new Map<string, string>()
  for (const list of ['candidates', 'dropped'] as const) for (const entry of existing[list]) fixes.set(entry.fix, sourceOf({ sources }, entry).name)
  const clash = [...added.candidates, ...added.dropped].find((entry) => fixes.has(entry.fix))
  if (clash !== undefined) {
    throw new SpecError(`--append: commit ${clash.fix} is already in the candidates file (from repository "${fixes.get(clash.fix)}"): a task set cannot hold the same commit twice`)
  }
  const named = <T extends { repository?: string | undefined }>(entries: readonly T[], name: string): T[] => entries.map((entry) => ({ ...entry, repository: name }))
  const existingRepositories: HarvestedRepository[] = 'repositories' in existing ? existing.repositories : [{ name: sources[0]!.name, ...withoutEntries(existing) }]
  const first = sources[0]!.name
  const kept = <T extends { repository?: string | undefined }>(entries: readonly T[]): T[] => ('repositories' in existing ? [...entries] : named(entries, first))
  return {
    format: 1,
    repositories: [...existingRepositories, { name: addedName, ...withoutEntries(added) }],
    candidates: [...kept(existing.candidates), ...named(added.candidates, addedName)],
    dropped: [...kept(existing.dropped), ...named(added.dropped, addedName)],
    rejected: [...kept(existing.rejected), ...named(added.rejected, addedName)],
  }
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
export function ruleRecord(rule: HarvestRule): RuleRecord {
  return {
    subject: rule.subject.source,
    since: rule.since === null ? null : rule.since.toISOString(),
    source: [...rule.sourceGlobs],
    tests: [...rule.testGlobs],
    max_source_files: rule.maxSourceFiles,
  }
}

/** The rule a candidates file records, ready to harvest with again. */
export function ruleFromRecord(record: RuleRecord): HarvestRule {
  return buildRule({ subject: record.subject, since: record.since, source: record.source, tests: record.tests, maxSourceFiles: record.max_source_files })
}
