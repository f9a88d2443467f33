import type { Task } from '../tasks/task.ts'
import type { Workspace } from '../workspace/workspace.ts'
import type { OracleCopy } from './copy.ts'
import { mountFixCopy, runFixTests } from './git-fix.ts'
import type { OracleOptions, OracleJudgement } from './judgement.ts'
import { runVerifyScript } from './verify.ts'

/** Judges a run after the agent stopped, with the task's own oracle. */
export async function judge(task: Task, workspace: Workspace, options: OracleOptions): Promise<OracleJudgement> {
  return task.kind === 'folder' ? runVerifyScript(task, workspace, options) : runFixTests(task, workspace, options)
}

/**
 * The oracle's clean tree mounted ahead of `judge` (pass it as
 * `OracleOptions.mountedCopy`, dispose it after): a sandboxed git-fix
 * oracle's overlay. Undefined where the oracle makes its tree itself (folder
 * tasks, a copy on disk without a sandbox).
 */
export function mountOracleCopy(task: Task, options: OracleOptions): Promise<OracleCopy> | undefined {
  return task.kind === 'git-fix' ? mountFixCopy(task, options) : undefined
}

/** Whether a run's changes touched a gold file (git-fix tasks only; null for folder tasks). */
export function touchesGoldFile(task: Task, changedFiles: readonly string[]): boolean | null {
  if (task.kind !== 'git-fix') return null
  return changedFiles.some((file) => task.metadata.gold_files.includes(file))
}

export type { OracleOptions, OracleJudgement, OracleStage } from './judgement.ts'
