import { execFileSync } from 'node:child_process'
import { lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { HarnessFailure } from '../errors.ts'

/**
 * Who a sandboxed process is on the host. A harness running as an ordinary
 * user runs bubblewrap as itself: uid 0 inside its user namespace is that
 * user outside, with no more rights than the user has. A harness running as
 * root (CI containers) must not hand that on: uid 0 inside would be host
 * root, owner of `/etc/shadow` and of every root-owned file a bind exposes,
 * capabilities or not. So as root every sandboxed process is started as the
 * **sandbox uid** (`setpriv --reuid --regid --clear-groups`), a uid no host
 * account has (2,000,000,000 unless `TASK_OUTCOME_SANDBOX_UID` says
 * otherwise), which bubblewrap then maps to uid 0 inside. Files the sandbox
 * may write are handed to it (`handOver`); the root harness still reads and
 * removes everything. One uid for every run: a template must be owned by the
 * uid that writes its overlay, and templates are shared by runs; the limits
 * that must hold per run (processes, memory) are per sandbox instead
 * (`limits.ts`).
 */

/** The sandbox uid when `TASK_OUTCOME_SANDBOX_UID` is unset. */
export const DEFAULT_SANDBOX_UID = 2_000_000_000

/** The unprivileged host identity sandboxed processes run as. */
export interface SandboxIdentity {
  readonly uid: number
  readonly gid: number
}

/** The sandbox identity when the harness runs as root; null otherwise (processes run as the harness's user). */
export function sandboxIdentity(): SandboxIdentity | null {
  if (process.getuid?.() !== 0) return null
  const raw = process.env.TASK_OUTCOME_SANDBOX_UID
  const uid = raw === undefined || raw === '' ? DEFAULT_SANDBOX_UID : Number(raw)
  if (!Number.isInteger(uid) || uid <= 0 || uid >= 2 ** 32 - 1) {
    throw new HarnessFailure('setup', `TASK_OUTCOME_SANDBOX_UID=${raw} is not a uid: set it to an unused uid above 0 (default ${DEFAULT_SANDBOX_UID})`, { retryable: false })
  }
  return { uid, gid: uid }
}

/** The prefix that starts a command as the sandbox identity (empty when there is none). */
export function asSandboxIdentity(identity: SandboxIdentity | null): string[] {
  if (identity === null) return []
  return ['setpriv', `--reuid=${identity.uid}`, `--regid=${identity.gid}`, '--clear-groups', '--']
}

/**
 * Gives the sandbox identity what the harness made for it to write: every
 * entry of each folder still owned by root becomes the sandbox uid's.
 * coreutils' `chown -R -P` walks by directory descriptors and never follows a
 * link, so a link the agent planted in a tree it already wrote cannot turn
 * this into a chown of a host file.
 */
export function handOver(dirs: readonly string[], identity: SandboxIdentity | null = sandboxIdentity()): void {
  if (identity === null || dirs.length === 0) return
  execFileSync('chown', ['-R', '-P', '--from=0', `${identity.uid}:${identity.gid}`, '--', ...dirs], { stdio: ['ignore', 'ignore', 'pipe'] })
}

/** Whether `uid` (not root, in no group) can reach `target` by path: every folder above it searchable by others or its own. */
export function reachable(target: string, identity: SandboxIdentity): boolean {
  let dir: string
  try {
    dir = path.dirname(realpathSync(target))
  } catch {
    return true
  }
  for (;;) {
    const info = statSync(dir)
    const searchable = info.uid === identity.uid ? (info.mode & 0o100) !== 0 : (info.mode & 0o001) !== 0
    if (!searchable) return false
    const parent = path.dirname(dir)
    if (parent === dir) return true
    dir = parent
  }
}

let stageDir: string | undefined

/**
 * An empty root-owned folder that sandbox processes can reach, over which the
 * starting process mounts (in a mount namespace of its own) a tmpfs holding
 * binds of what the sandbox uid could not reach by its own path (a folder
 * under `/root`, a test's 0700 temporary folder): bubblewrap, running as the
 * sandbox uid, binds them from there.
 */
export function stagingDir(): string {
  if (stageDir !== undefined) return stageDir
  const dir = path.join(os.tmpdir(), 'task-outcome-stage')
  mkdirSync(dir, { recursive: true, mode: 0o755 })
  const info = lstatSync(dir)
  if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
    throw new HarnessFailure('setup', `${dir} is not a root-owned folder others cannot write: remove it (the harness makes it)`, { retryable: false })
  }
  return (stageDir = dir)
}
