import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { HarnessFailure } from '../errors.ts'

/**
 * The run's workspace as a kernel overlay: the task's template is the
 * read-only lower layer, the run's own upper folder takes every write. The
 * overlay is mounted inside a user and mount namespace of its own (allowed
 * without privileges since Linux 5.11), held open by a small holder process
 * (`unshare … sh`, reading its stdin). The harness reaches the merged tree
 * through `/proc/<holder>/root/…`; every sandboxed process of the run enters
 * the holder's namespaces (`nsenter`) before bubblewrap builds its own on top,
 * so agent and harness see the same tree while the template stays untouched.
 * Making a workspace costs this mount, whatever the repository's size.
 */

/** Where the overlay's layers are. */
export interface OverlayLayers {
  /** The read-only lower layer(s), topmost first (the template). */
  readonly lower: readonly string[]
  /** The run's upper layer: every write lands here. Empty at first. */
  readonly upper: string
  /** overlayfs's work folder (same file system as `upper`, empty). */
  readonly work: string
  /** The mount point: the path the agent sees its workspace at (an empty folder). */
  readonly target: string
}

/** A mounted overlay, alive until `release()`. */
export interface MountedOverlay {
  readonly layers: OverlayLayers
  /** The holder's pid: sandboxed processes enter its user and mount namespaces. */
  readonly pid: number
  /** The merged tree as the harness reaches it (`/proc/<pid>/root<target>`). */
  readonly hostPath: string
  /** Ends the holder; the mount goes with the last process in its namespace. The upper layer stays. */
  release(): Promise<void>
}

/** Characters overlayfs's option string cannot carry in a path. */
const UNSAFE = /[,:\\\n]/

function checkPath(label: string, dir: string): void {
  if (!path.isAbsolute(dir)) throw new HarnessFailure('setup', `overlay ${label} must be an absolute path: ${dir}`, { retryable: false })
  if (UNSAFE.test(dir)) {
    throw new HarnessFailure('setup', `overlay ${label} ${dir} holds a comma, colon or backslash, which overlayfs cannot mount: set TASK_OUTCOME_WORKDIR / TASK_OUTCOME_TEMPLATES to plain paths`, {
      retryable: false,
    })
  }
}

// $0 = options string, $1 = target. `read` returns when the harness closes stdin (or dies): the namespace then ends.
const HOLDER = 'mount -t overlay overlay -o "$0" "$1" || exit 97; echo ready; read _ignored; exit 0'

/** Mounts the overlay in a namespace of its own and returns once it is mounted. */
export async function mountOverlay(layers: OverlayLayers): Promise<MountedOverlay> {
  for (const dir of layers.lower) checkPath('lower layer', dir)
  checkPath('upper layer', layers.upper)
  checkPath('work folder', layers.work)
  checkPath('mount point', layers.target)
  await Promise.all([mkdir(layers.upper, { recursive: true }), mkdir(layers.work, { recursive: true }), mkdir(layers.target, { recursive: true })])
  const options = `userxattr,lowerdir=${layers.lower.join(':')},upperdir=${layers.upper},workdir=${layers.work}`
  const holder: ChildProcess = spawn('unshare', ['--user', '--map-root-user', '--mount', '--', '/bin/sh', '-c', HOLDER, options, layers.target], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  })
  let stderr = ''
  holder.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  await new Promise<void>((resolve, reject) => {
    let out = ''
    const fail = (why: string) =>
      reject(new HarnessFailure('setup', `mounting the workspace overlay failed (${why}): ${stderr.trim().split('\n').slice(-3).join(' ')}`, { retryable: false }))
    holder.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('ready\n')) resolve()
    })
    holder.once('error', (error) => fail(error.message))
    holder.once('exit', (code, signal) => fail(`the holder exited ${code ?? signal}`))
  })
  holder.stdout!.resume()
  const exited = new Promise<void>((resolve) => {
    if (holder.exitCode !== null || holder.signalCode !== null) resolve()
    else holder.once('exit', () => resolve())
  })
  const pid = holder.pid!
  return {
    layers,
    pid,
    hostPath: `/proc/${pid}/root${layers.target}`,
    async release() {
      holder.stdin!.end()
      const timer = setTimeout(() => holder.kill('SIGKILL'), 2000)
      await exited
      clearTimeout(timer)
    },
  }
}
