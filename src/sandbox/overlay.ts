import { spawn, type ChildProcess } from 'node:child_process'
import { statfsSync } from 'node:fs'
import { lchown, lstat, mkdir, readdir } from 'node:fs/promises'
import path from 'node:path'
import { HarnessFailure } from '../errors.ts'
import { sandboxIdentity, type SandboxIdentity } from './identity.ts'

/**
 * The run's workspace as a kernel overlay: the task's template is the
 * read-only lower layer, the run's own upper folder takes every write. The
 * overlay is mounted inside a user and mount namespace of its own (allowed
 * without privileges since Linux 5.11; a harness running as root needs only
 * the mount namespace, see `identity.ts`), held open by a small holder process
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
  /** The upper layer as the harness reads it (inside the holder's namespace when it is on the run's tmpfs). */
  readonly upperOnHost: string
  /**
   * The run's HOME on the same tmpfs, under a disk limit (undefined without one): `inside` is the folder as
   * sandboxed processes' bubblewrap finds it (in the holder's namespace), `onHost` as the harness reaches it.
   * HOME and the upper layer share the limit, so a run cannot write past it in either.
   */
  readonly home: { readonly inside: string; readonly onHost: string } | undefined
  /** Whether the run's tmpfs (the disk limit) is full, or nearly: the run wrote all it may. False without a limit. */
  diskFull(): boolean
  /** Ends the holder; the mount goes with the last process in its namespace. The upper layer stays (gone with its tmpfs under a disk limit). */
  release(): Promise<void>
}

/** Characters overlayfs's option string cannot carry in a path. */
const UNSAFE = /[,:\\\n]/

function checkPath(label: string, dir: string): void {
  if (!path.isAbsolute(dir)) throw new HarnessFailure('setup', `overlay ${label} must be an absolute path: ${dir}`, { retryable: false })
  if (UNSAFE.test(dir)) {
    throw new HarnessFailure(
      'setup',
      `overlay ${label} ${dir} holds a comma, colon or backslash, which overlayfs cannot mount: set TASK_OUTCOME_WORKDIR / TASK_OUTCOME_TEMPLATES to plain paths`,
      {
        retryable: false,
      },
    )
  }
}

/**
 * $0 = options string (empty: no overlay, `$2` itself bound at the target: a plain copy), $1 = target, $2 upper, $3 work, $4 the owner of upper (and HOME) or empty; with a disk
 * limit, $5 its size in bytes and $6 the folder holding upper, work and the run's HOME, which becomes a tmpfs of
 * that size in the holder's namespace. One `install` makes and hands over the folders (no process of the
 * harness's own blocks on a chown). `read` returns when the harness closes stdin (or dies): the namespace, and
 * the tmpfs, then end.
 */
const HOLDER = [
  'owned=; if [ -n "$4" ]; then owned="-o ${4%%:*} -g ${4##*:}"; fi',
  'if [ -n "$5" ]; then',
  '  mount -t tmpfs -o "size=$5,mode=0755" task-outcome-disk "$6" || exit 97',
  '  install -d -m 0755 $owned "$2" "$3" "$6/home" || exit 97',
  'elif [ -n "$4" ]; then',
  '  chown "$4" "$2" || exit 97',
  'fi',
  'if [ -n "$0" ]; then mount -t overlay overlay -o "$0" "$1" || exit 97; else mount --bind "$2" "$1" || exit 97; fi',
  'echo ready; read _ignored; exit 0',
].join('\n')

/** How the overlay is mounted. */
export interface OverlayOptions {
  /**
   * The most the run may write, in MiB: upper and work (which must share a
   * parent folder, the mount point outside it) then live on a tmpfs of this
   * size, with the run's HOME (`home` of the mounted overlay) beside them, so
   * a run that fills it never touches the host's disk.
   */
  readonly diskMb?: number
}

/** Mounts the overlay in a namespace of its own and returns once it is mounted. */
export function mountOverlay(layers: OverlayLayers, options: OverlayOptions = {}): Promise<MountedOverlay> {
  for (const dir of layers.lower) checkPath('lower layer', dir)
  return startHolder(layers, `userxattr,lowerdir=${layers.lower.join(':')},upperdir=${layers.upper},workdir=${layers.work}`, options)
}

/**
 * Where no overlay can be mounted: the workspace is a plain copy, and under a
 * disk limit it lives on the run's tmpfs as the upper layer would (the folder
 * `upper` bound at the mount point in the holder's namespace, HOME beside it),
 * so a copy written full never touches the host's disk either. The caller
 * copies the template in through `hostPath`; `lower` stays empty (there is
 * no layer below: changes are read against the template by content).
 */
export function mountPlainCopy(layers: Omit<OverlayLayers, 'lower'>, options: OverlayOptions = {}): Promise<MountedOverlay> {
  return startHolder({ ...layers, lower: [] }, '', options)
}

async function startHolder(layers: OverlayLayers, mountOptions: string, options: OverlayOptions): Promise<MountedOverlay> {
  checkPath('upper layer', layers.upper)
  checkPath('work folder', layers.work)
  checkPath('mount point', layers.target)
  const disk = options.diskMb === undefined ? undefined : path.dirname(layers.upper)
  if (disk !== undefined && (path.dirname(layers.work) !== disk || layers.target.startsWith(`${disk}/`))) {
    throw new HarnessFailure(
      'setup',
      `overlay with a disk limit: upper and work must share a folder that does not hold the mount point (${layers.upper}, ${layers.work}, ${layers.target})`,
      { retryable: false },
    )
  }
  // HOME's folder exists on the host too (hidden under the tmpfs), so the sandbox's binds can check who reaches it.
  const home = disk === undefined ? [] : [mkdir(path.join(disk, 'home'), { recursive: true })]
  await Promise.all([mkdir(layers.upper, { recursive: true }), mkdir(layers.work, { recursive: true }), mkdir(layers.target, { recursive: true }), ...home])
  // The merged root takes the upper folder's owner: the sandbox uid's when the harness is root (the holder hands it over).
  const identity = sandboxIdentity()
  // As root, a mount namespace of root's own: the sandbox uid (identity.ts) owns the template and writes the upper layer.
  const namespaces = identity === null ? ['--user', '--map-root-user', '--mount'] : ['--mount', '--propagation', 'private']
  const owner = identity === null ? '' : `${identity.uid}:${identity.gid}`
  const diskArgs = disk === undefined ? [] : [String(options.diskMb! * 1024 * 1024), disk]
  const holder: ChildProcess = spawn('unshare', [...namespaces, '--', '/bin/sh', '-c', HOLDER, mountOptions, layers.target, layers.upper, layers.work, owner, ...diskArgs], {
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
      reject(
        new HarnessFailure('setup', `mounting the workspace ${mountOptions === '' ? 'copy' : 'overlay'} failed (${why}): ${stderr.trim().split('\n').slice(-3).join(' ')}`, {
          retryable: false,
        }),
      )
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
    upperOnHost: disk === undefined ? layers.upper : `/proc/${pid}/root${layers.upper}`,
    home: disk === undefined ? undefined : { inside: path.join(disk, 'home'), onHost: `/proc/${pid}/root${path.join(disk, 'home')}` },
    diskFull() {
      if (disk === undefined) return false
      const info = statfsSync(`/proc/${pid}/root${disk}`)
      const free = info.bavail * info.bsize
      return free < Math.max(1024 * 1024, (info.blocks * info.bsize) / 50)
    },
    async release() {
      holder.stdin!.end()
      const timer = setTimeout(() => holder.kill('SIGKILL'), 2000)
      await exited
      clearTimeout(timer)
    },
  }
}

/**
 * Gives the sandbox identity what the harness, as root, wrote through an
 * overlay's merged tree (the oracle's copy: the agent's taken changes, the
 * fix's tests), as `handOver` does for a folder. Only the upper layer is
 * walked (what was written, not the template below), listing folders by
 * their entries' types and following no link; each root-owned entry is
 * chowned through the merged tree (`lchown`), never in the upper layer behind
 * overlayfs's back, whose cached inodes would keep root as owner. Whiteouts
 * (character devices in the upper layer) stand for removed entries and are
 * skipped.
 */
export async function handOverWrites(overlay: MountedOverlay, identity: SandboxIdentity | null = sandboxIdentity()): Promise<void> {
  if (identity === null) return
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(overlay.upperOnHost, relative), { withFileTypes: true })) {
      if (entry.isCharacterDevice()) continue
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`
      const info = await lstat(path.join(overlay.upperOnHost, child))
      if (info.uid === 0) await lchown(path.join(overlay.hostPath, child), identity.uid, identity.gid)
      if (entry.isDirectory()) await walk(child)
    }
  }
  await walk('')
}
