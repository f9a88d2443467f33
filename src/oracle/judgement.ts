import type { LimitName } from '../sandbox/index.ts'
import type { OracleCopy } from './copy.ts'
import type { OracleToolchain } from './toolchain.ts'
import type { OracleResult } from './result.ts'

/**
 * What the oracle decided about a run, and what it saw: solved or not, with
 * the evidence. (Not a "verdict": that word is the decision rule's answer.)
 */
export interface OracleJudgement {
  readonly solved: boolean
  readonly oracle: OracleResult
  /** The oracle's own output, kept beside the record. */
  readonly stdout: string
  readonly stderr: string
  /**
   * What the oracle itself caught (`oracle-disarmed: <why>` when a canary or
   * the second channel showed the report cannot be believed; the run is then
   * unsolved; `verify-script-rewritten` when `verify.sh` was written while it ran). Recorded in the run's `integrityFlags`.
   */
  readonly integrityFlags?: readonly string[]
  /** The resource limit the oracle's tests reached (their tmpfs, HOME included, written full: `disk`); the run is then unsolved. */
  readonly limit?: LimitName
}

/** The oracle's own stages, as `OracleOptions.onStage` names them. */
export type OracleStage = 'oracle preparation' | 'test command'

/** What every oracle needs besides the task and the workspace. */
export interface OracleOptions {
  readonly timeoutMs: number
  /** A scratch folder the oracle may use (a clean copy for git-fix tasks). */
  readonly scratchDir: string
  readonly signal?: AbortSignal
  /**
   * Run the oracle's processes in a sandbox without network, seeing only the
   * copy it judges (or the workspace, for `verify.sh`), its scratch folders and
   * these read-only toolchain folders. Undefined: on the host (UNSANDBOXED).
   */
  readonly sandbox?: {
    readonly readOnly: readonly string[]
    /** The most the tests may write, in MiB (`sandbox.limits.diskMb`): the copy's upper layer and HOME share a tmpfs of this size. */
    readonly diskMb?: number
  }
  /** The toolchain the harness resolved (its PATH finds the resolved node, python3 and bash first); undefined: the host PATH. */
  readonly toolchain?: OracleToolchain
  /**
   * Told how long the git-fix oracle's stages took: its preparation (the
   * agent's changes read, the copy made and laid) and its test command's run
   * (the run benchmark's split; nothing is recorded from it).
   */
  readonly onStage?: (stage: OracleStage, ms: number) => void
  /**
   * The template folder whose seal the run's task guard checks after the
   * oracle (`executeRun`'s judging: `TaskGuard.afterOracle`, whatever the
   * oracle did; a change found then stops the experiment as `tampered`).
   * An oracle copy over this same folder, checked by this process, is mounted
   * without walking the seal again (one `lstat` per entry less per run).
   * Undefined (as for `verify`): the oracle checks the template itself.
   */
  readonly watchedTemplate?: string
  /**
   * The agent's changed files as the run's judging read them once
   * (`Workspace.readChanges`), so the oracle takes the same list the record
   * and the diff have; undefined: the git-fix oracle reads the workspace.
   */
  readonly changedFiles?: readonly string[]
  /**
   * The git-fix oracle's clean tree, mounted by the caller ahead of the
   * oracle (`mountOracleCopy`: a run's judging mounts it while it reads and
   * writes down the agent's change), who also disposes it. The oracle lays
   * the agent's changes and the fix's tests in it as into a copy of its own.
   * Undefined: the oracle makes its own.
   */
  readonly mountedCopy?: Promise<OracleCopy>
}
