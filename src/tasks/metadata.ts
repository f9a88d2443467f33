import { z } from 'zod'
import { RepositoryNameSchema } from './repository-name.ts'

/**
 * `metadata.json` of a task folder. Strict: an unknown key is an error (a
 * misspelt field must not be ignored). The folder name is `<id>-<slug>`.
 */

const id = z.string().regex(/^\d{3,}$/, 'three or more digits, as in the folder name "<NNN>-<slug>"')
const slug = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes')

/** A skills-benchmark style task: `starting/` is the workspace seed, `verify.sh` the oracle. */
export const FolderMetadataSchema = z.strictObject({
  id,
  slug,
  kind: z.literal('folder'),
  /** The skill meant to help, or "none" for a negative-control task. */
  target_skill: z.string().min(1),
  /** A real skill that should not help (the negative control), or "none". */
  irrelevant_skill: z.string().min(1),
  category: z.string().min(1),
  difficulty: z.enum(['easy', 'medium', 'hard']),
  notes: z.string().optional(),
  /**
   * Globs (relative to `starting/`, picomatch syntax, dotfiles included) of the
   * files `verify.sh` reads but the fix must not change: its data, its
   * configuration. The oracle restores them from `starting/` on its copy of
   * the workspace before `verify.sh` runs, so an agent that edits the data
   * instead of the code does not pass.
   */
  protect: z.array(z.string().min(1)).default([]),
  /**
   * Without `protect`, the oracle protects every non-code file of `starting/`
   * the reference solution leaves unchanged (`oracle/folder-defaults.ts`);
   * these globs take files out of that default (data the fix may rewrite).
   */
  editable: z.array(z.string().min(1)).default([]),
})
export type FolderMetadata = z.infer<typeof FolderMetadataSchema>

/** A path inside the repository: relative, `/`-separated, no `..`, no leading dot-folder tricks. */
const repositoryPath = z
  .string()
  .min(1)
  .refine((value) => !value.startsWith('/') && !value.includes('\\') && value.split('/').every((part) => part !== '' && part !== '.' && part !== '..'), {
    message: 'a relative path inside the repository, "/"-separated, without "." or ".." parts',
  })

/**
 * What a git-fix task's tests need besides the repository and the machine's
 * toolchain: a dependency folder (`node_modules`) the harness prepares once
 * per (prepare command, input files, platform) from the parent commit's
 * lockfile, in a sandbox without network, and mounts read-only into the
 * agent's workspace, the arm setup and the oracle. Shared by every arm.
 */
export const TaskDependenciesSchema = z.strictObject({
  /** The command that makes the folder, run by bash in a folder holding only `inputs` (e.g. `npm ci --offline --ignore-scripts`). */
  prepare: z.string().min(1),
  /** The files the command reads, taken from the parent commit, each with its SHA-256 (so the lockfile is in the spec hash). */
  inputs: z.record(repositoryPath, z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256, 64 lowercase hex digits')).refine((inputs) => Object.keys(inputs).length > 0, {
    message: 'at least one input file (the lockfile)',
  }),
  /** The folder the command makes, mounted read-only at the same path in the workspace (default `node_modules`). */
  mount: repositoryPath.default('node_modules'),
})

/** A bug fix harvested from git history: the agent starts at `base`, the oracle is the fix's tests. */
export const GitFixMetadataSchema = z.strictObject({
  id,
  slug,
  kind: z.literal('git-fix'),
  /** The repository (path relative to the task folder, or absolute; a git bundle works too). */
  repo: z.string().min(1),
  /**
   * The repository's portable name, which records and the report use (task
   * sets drawn from several repositories are broken down by it). Default: the
   * name of `repo`'s folder or bundle without `.git`/`.bundle`.
   */
  repository: RepositoryNameSchema.optional(),
  /** The fix's parent commit: the agent's starting point. */
  base: z.string().regex(/^[0-9a-f]{40}$/, 'a full 40-hex commit id'),
  /** The fix commit. */
  fix: z.string().regex(/^[0-9a-f]{40}$/, 'a full 40-hex commit id'),
  /** Non-test files the fix changed (the answer; prompts must never name them). */
  gold_files: z.array(z.string().min(1)).min(1),
  /** Test files the fix changed or added; their fixed versions live in `oracle/`. */
  test_files: z.array(z.string().min(1)).min(1),
  FAIL_TO_PASS: z.array(z.string().min(1)).min(1),
  PASS_TO_PASS: z.array(z.string().min(1)),
  /** The test command, with `{tests}` and `{junit}` placeholders. */
  test_command: z.string().min(1),
  /** The dependency folder the tests need (absent: the repository and the machine's toolchain suffice). */
  dependencies: TaskDependenciesSchema.optional(),
  /**
   * Globs (picomatch, `/`-separated) of the repository's test files, as the
   * harvest used them: the oracle never takes an agent's change to a matching
   * file (nor to test folders, conftest files or runner configuration).
   * Default: pytest's and the JavaScript runners' naming conventions.
   */
  test_globs: z.array(z.string().min(1)).optional(),
  /** The commit subject, for humans. */
  subject: z.string().optional(),
  /**
   * When the fix was committed (ISO 8601, as `git log --format=%cI` prints it;
   * `select` writes it). An experiment that names the model's training cutoff
   * flags tasks fixed on or before it as possibly in the training data.
   */
  fix_date: z.iso.datetime({ offset: true, message: 'an ISO 8601 date and time, e.g. 2026-07-02T09:00:00+00:00' }).optional(),
  /**
   * Gold files' module names the prompt uses, each with the reason it must
   * (from the prompt's front matter, accepted by `select`; the report lists them).
   */
  allow: z.array(z.strictObject({ word: z.string().min(1), reason: z.string().min(1) })).optional(),
})
export type GitFixMetadata = z.infer<typeof GitFixMetadataSchema>

export const TaskMetadataSchema = z.discriminatedUnion('kind', [FolderMetadataSchema, GitFixMetadataSchema])
export type TaskMetadata = z.infer<typeof TaskMetadataSchema>

const warnedFiles = new Set<string>()

/**
 * Reads a renamed field under its old name (a task's `toolchain`, now
 * `dependencies`), so task sets and candidates files an earlier harness wrote
 * keep loading; prints one line per file and process asking for the rename.
 * With both names present, the old one stays and the strict schema refuses it.
 */
export function readRenamedField(raw: unknown, file: string, old: string, current: string, warn: (line: string) => void = console.warn): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !(old in raw) || current in raw) return raw
  const { [old]: value, ...rest } = raw as Record<string, unknown>
  if (!warnedFiles.has(file)) {
    warnedFiles.add(file)
    warn(`${file}: "${old}" is deprecated: rename it to "${current}" (read as "${current}" for now)`)
  }
  return { ...rest, [current]: value }
}
