import { copyFile, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { copyTreeInside } from '../workspace/inside.ts'
import { restoreProtected } from './protect.ts'
import { PLANTED_CONFIGURATION_GLOBS, protectedPaths } from './folder-defaults.ts'
import { DEFAULT_LIMITS, handOverWrites, isolatedSandbox, mountPlainCopy, runProcess, UNSANDBOXED_HOST, type MountedOverlay } from '../sandbox/index.ts'
import type { FolderTask } from '../tasks/task.ts'
import type { Workspace } from '../workspace/workspace.ts'
import type { OracleOptions, OracleJudgement } from './judgement.ts'
import { sha256 } from '../shared/sha256.ts'

/** Exit status recorded when `verify.sh` itself runs past the oracle timeout. */
export const VERIFY_TIMEOUT_EXIT = 124

/** The integrity flag of a run whose `verify.sh` was written while it ran (the run is unsolved). */
export const VERIFY_REWRITTEN = 'verify-script-rewritten'

/**
 * A folder task's oracle: the task's own `verify.sh` (outside the workspace,
 * so the agent cannot edit it), run with the workspace as working directory.
 * Sandboxed, it runs inside the workspace's overlay with no network, seeing
 * the script itself read-only and nothing else of the task. Exit 0 means solved.
 *
 * It runs on a copy of the workspace (following no link the agent left,
 * carrying no FIFO, socket or device) on which planted interpreter and
 * package-manager configuration and installed packages are as `starting/`
 * has them ({@link PLANTED_CONFIGURATION_GLOBS}), and so are the protected
 * paths: the task's `protect` globs, or by default every non-code file the
 * reference solution leaves unchanged ({@link protectedPaths}). The data and
 * configuration `verify.sh` reads are the task's, not what the agent left.
 * npm's user and global configuration are empty files.
 *
 * The script that runs is a private copy of the task's `verify.sh` (in a
 * folder of its own, bound read-only at the task file's path), never a bind of
 * the task's file: code under test that manages to write it writes only the
 * copy, and a copy written while it ran (its content, size or change time
 * moved, even if put back) makes the run unsolved, flagged `verify-script-rewritten`.
 */
export async function runVerifyScript(task: FolderTask, workspace: Workspace, options: OracleOptions): Promise<OracleJudgement> {
  const root = await mkdtemp(path.join(options.scratchDir, 'verify-'))
  let limited: MountedOverlay | undefined
  try {
    // Sandboxed, the copy and verify.sh's HOME are on a tmpfs of the run's disk limit (the copy bound at `tree`).
    const target = path.join(root, 'tree')
    limited =
      options.sandbox === undefined
        ? undefined
        : await mountPlainCopy(
            { upper: path.join(root, 'layers', 'upper'), work: path.join(root, 'layers', 'work'), target },
            { diskMb: options.sandbox.diskMb ?? DEFAULT_LIMITS.diskMb },
          )
    const copy = limited?.hostPath ?? root
    const special = await copyTreeInside(workspace.dir, copy)
    const planted = await restoreProtected(copy, task.startingDir, PLANTED_CONFIGURATION_GLOBS)
    const protect = await protectedPaths(task, options)
    const restored = await restoreProtected(copy, task.startingDir, protect)
    const skipped = special.length === 0 ? '' : `[task-outcome oracle] not carried into the copy (a FIFO, socket or device): ${special.join(', ')}\n`
    const note =
      skipped +
      (planted.length === 0 ? '' : `[task-outcome oracle] interpreter or package-manager configuration as starting/ has it: ${planted.join(', ')}\n`) +
      `[task-outcome oracle] verify.sh ran on a copy with the protected paths (${task.metadata.protect.length > 0 ? task.metadata.protect.join(', ') : 'by default: the non-code files the reference solution leaves unchanged'}) ` +
      `restored from starting/: ${restored.length === 0 ? 'none differed' : restored.join(', ')}\n`
    if (limited !== undefined) await handOverWrites(limited)
    const judgement = await verifyIn(task, { ...workspace, dir: copy, agentDir: limited === undefined ? copy : target, overlay: limited }, options, note)
    if (limited?.diskFull() !== true) return judgement
    return {
      ...judgement,
      solved: false,
      limit: 'disk',
      stderr: `[task-outcome oracle] verify.sh wrote the oracle's disk limit full (the copy and HOME): counted as unsolved at limit 'disk'\n${judgement.stderr}`,
    }
  } finally {
    await limited?.release()
    await rm(root, { recursive: true, force: true })
  }
}

const fileSha256 = async (file: string) => sha256(await readFile(file))

async function verifyIn(task: FolderTask, workspace: Workspace, options: OracleOptions, note: string): Promise<OracleJudgement> {
  const privateDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-verify-'))
  try {
    const script = path.join(privateDir, 'verify.sh')
    await copyFile(task.verifyScript, script)
    const before = await lstat(script, { bigint: true })
    const expected = await fileSha256(script)
    // npm refuses one file as both its user and its global configuration: two empty ones, read-only in the sandbox.
    const npm = path.join(privateDir, 'npm')
    await mkdir(npm)
    await writeFile(path.join(npm, 'user.npmrc'), '', { mode: 0o444 })
    await writeFile(path.join(npm, 'global.npmrc'), '', { mode: 0o444 })
    const judgement = await verifyWith(task, script, npm, workspace, options, note)
    const after = await lstat(script, { bigint: true })
    const rewritten = after.ctimeNs !== before.ctimeNs || after.mtimeNs !== before.mtimeNs || after.size !== before.size || (await fileSha256(script)) !== expected
    if (!rewritten) return judgement
    return {
      ...judgement,
      solved: false,
      integrityFlags: [VERIFY_REWRITTEN],
      stderr: `[task-outcome oracle] verify.sh was written while it ran (its change time, size or content moved): counted as unsolved\n${judgement.stderr}`,
    }
  } finally {
    await rm(privateDir, { recursive: true, force: true })
  }
}

async function verifyWith(task: FolderTask, script: string, npm: string, workspace: Workspace, options: OracleOptions, note: string): Promise<OracleJudgement> {
  const overlay = workspace.overlay
  // HOME on the copy's tmpfs when it has one (sandboxed), bound at a path of the scratch folder; otherwise the scratch folder.
  const limitedHome = overlay?.home
  const home = limitedHome === undefined ? options.scratchDir : path.join(options.scratchDir, 'verify-home')
  const env = {
    PATH: options.toolchain?.path ?? process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    NPM_CONFIG_USERCONFIG: path.join(npm, 'user.npmrc'),
    NPM_CONFIG_GLOBALCONFIG: path.join(npm, 'global.npmrc'),
  }
  const sandbox =
    options.sandbox === undefined
      ? UNSANDBOXED_HOST
      : isolatedSandbox({
          writable: limitedHome === undefined ? [options.scratchDir, ...(overlay === undefined ? [workspace.agentDir] : [])] : [],
          ...(limitedHome === undefined ? {} : { writableMounts: [{ source: limitedHome.inside, target: home, onHost: limitedHome.onHost }] }),
          readOnly: [...options.sandbox.readOnly, npm],
          mounts: [{ source: script, target: task.verifyScript }],
          ...(overlay === undefined ? {} : { overlay: { pid: overlay.pid, target: overlay.layers.target } }),
        })
  const result = await runProcess(
    { file: options.sandbox === undefined ? (options.toolchain?.binaries.bash ?? 'bash') : '/bin/bash', args: [options.sandbox === undefined ? script : task.verifyScript] },
    {
      cwd: options.sandbox === undefined ? workspace.dir : workspace.agentDir,
      env,
      timeoutMs: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      sandbox,
    },
  )
  const verifyExit = result.timedOut ? VERIFY_TIMEOUT_EXIT : (result.exitCode ?? 1)
  return { solved: verifyExit === 0, oracle: { verifyExit }, stdout: result.stdout, stderr: `${note}${result.stderr}` }
}
