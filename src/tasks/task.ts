import type { FolderMetadata, GitFixMetadata } from './metadata.ts'

/** What every loaded task has, whatever its kind. */
interface TaskBase {
  /** The folder name `<NNN>-<slug>`: the task's id in case names and records. */
  readonly id: string
  /** Absolute path of the task folder. */
  readonly dir: string
  /** The exact prompt (`task.md`). */
  readonly prompt: string
  /** Every file of the task folder (absolute, sorted): what the spec hash covers. */
  readonly files: readonly string[]
}

/** The reference solution of a folder task: a script run in the workspace, or a patch applied to it. */
export type FolderSolution = { readonly kind: 'script'; readonly path: string } | { readonly kind: 'patch'; readonly path: string }

/** A task folder with `starting/` and `verify.sh`. */
export interface FolderTask extends TaskBase {
  readonly kind: 'folder'
  readonly metadata: FolderMetadata
  readonly startingDir: string
  readonly verifyScript: string
  readonly solution: FolderSolution | null
}

/** A bug fix from git history, judged by the fix's own tests (in `oracle/`). */
export interface GitFixTask extends TaskBase {
  readonly kind: 'git-fix'
  readonly metadata: GitFixMetadata
  /** Absolute path of the repository the task was harvested from. */
  readonly repo: string
  /** The repository's portable name (`metadata.repository`, or the folder's or bundle's name): what records and the report call it. */
  readonly repository: string
  /** Absolute path of `oracle/`: the fix's test files, by their repository paths. */
  readonly oracleDir: string
  /** The fix's non-test changes as a patch (`solution/gold.patch`), applied by the `gold` agent. */
  readonly goldPatch: string | null
}

/**
 * A loaded, validated task of either kind, as an agent's run request carries
 * it (`request.task`): a folder task (`starting/` + `verify.sh`) or a git-fix
 * task harvested from history (judged by the fix's own tests). An agent reads
 * its `id` and `prompt`; it never sees the oracle's files.
 */
export type Task = FolderTask | GitFixTask
