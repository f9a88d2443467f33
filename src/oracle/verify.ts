import { mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import { restoreProtected } from './protect.ts'
import { isolatedSandbox, runProcess, UNSANDBOXED_HOST } from '../sandbox/index.ts'
import type { FolderTask } from '../tasks/task.ts'
import { copyFolder } from '../workspace/copy-folder.ts'
import type { Workspace } from '../workspace/workspace.ts'
import type { OracleOptions, OracleJudgement } from './judgement.ts'

/** Exit status recorded when `verify.sh` itself runs past the oracle timeout. */
export const VERIFY_TIMEOUT_EXIT = 124

/**
 * A folder task's oracle: the task's own `verify.sh` (outside the workspace,
 * so the agent cannot edit it), run with the workspace as working directory.
 * Sandboxed, it runs inside the workspace's overlay with no network, seeing
 * the script itself read-only and nothing else of the task. Exit 0 means solved.
 *
 * A task whose metadata names `protect` globs is judged on a copy of the
 * workspace with those paths restored from `starting/`: the data and
 * configuration `verify.sh` reads are the task's, not what the agent left.
 */
export async function runVerifyScript(task: FolderTask, workspace: Workspace, options: OracleOptions): Promise<OracleJudgement> {
  if (task.metadata.protect.length === 0) return verifyIn(task, workspace, options, '')
  const copy = await mkdtemp(path.join(options.scratchDir, 'verify-'))
  try {
    await copyFolder(workspace.dir, copy)
    const restored = await restoreProtected(copy, task.startingDir, task.metadata.protect)
    const note = `[task-outcome oracle] verify.sh ran on a copy with the protected paths (${task.metadata.protect.join(', ')}) restored from starting/: ${restored.length === 0 ? 'none found' : restored.join(', ')}\n`
    return await verifyIn(task, { ...workspace, dir: copy, agentDir: copy, overlay: undefined }, options, note)
  } finally {
    await rm(copy, { recursive: true, force: true })
  }
}

async function verifyIn(task: FolderTask, workspace: Workspace, options: OracleOptions, note: string): Promise<OracleJudgement> {
  const env = { PATH: options.toolchain?.path ?? process.env.PATH ?? '/usr/bin:/bin', HOME: options.scratchDir, LANG: 'C.UTF-8' }
  const overlay = workspace.overlay
  const sandbox =
    options.sandbox === undefined
      ? UNSANDBOXED_HOST
      : isolatedSandbox({
          writable: [options.scratchDir, ...(overlay === undefined ? [workspace.agentDir] : [])],
          readOnly: [...options.sandbox.readOnly, task.verifyScript],
          ...(overlay === undefined ? {} : { overlay: { pid: overlay.pid, target: overlay.layers.target } }),
        })
  const result = await runProcess(
    { file: options.sandbox === undefined ? (options.toolchain?.binaries.bash ?? 'bash') : '/bin/bash', args: [task.verifyScript] },
    { cwd: options.sandbox === undefined ? workspace.dir : workspace.agentDir, env, timeoutMs: options.timeoutMs, ...(options.signal === undefined ? {} : { signal: options.signal }), sandbox },
  )
  const verifyExit = result.timedOut ? VERIFY_TIMEOUT_EXIT : (result.exitCode ?? 1)
  return { solved: verifyExit === 0, oracle: { verifyExit }, stdout: result.stdout, stderr: `${note}${result.stderr}` }
}
