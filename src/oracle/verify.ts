import { execa } from 'execa'
import type { FolderTask } from '../tasks/task.ts'
import type { Workspace } from '../workspace/workspace.ts'
import type { OracleOptions, OracleJudgement } from './judgement.ts'

/** Exit status recorded when `verify.sh` itself runs past the oracle timeout. */
export const VERIFY_TIMEOUT_EXIT = 124

/**
 * A folder task's oracle: the task's own `verify.sh` (outside the workspace,
 * so the agent cannot edit it), run with the workspace as working directory.
 * Exit 0 means solved.
 */
export async function runVerifyScript(task: FolderTask, workspace: Workspace, options: OracleOptions): Promise<OracleJudgement> {
  const result = await execa('bash', [task.verifyScript], {
    cwd: workspace.dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.scratchDir, LANG: 'C.UTF-8' },
    extendEnv: false,
    reject: false,
    timeout: options.timeoutMs,
    cancelSignal: options.signal,
    stdin: 'ignore',
  })
  const verifyExit = result.timedOut ? VERIFY_TIMEOUT_EXIT : (result.exitCode ?? 1)
  return { solved: verifyExit === 0, oracle: { verifyExit }, stdout: result.stdout, stderr: result.stderr }
}
