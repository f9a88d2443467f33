import { constants, type Stats } from 'node:fs'
import { lstat, mkdir, open, readdir, readlink, rm, symlink, utimes } from 'node:fs/promises'
import path from 'node:path'
import { runProcess, UNSANDBOXED_HOST } from '../sandbox/index.ts'

/**
 * File operations that never follow a link the agent left. The harness runs
 * as root on the host; the trees it reads and writes after a run (the
 * workspace's merged tree, the oracle's copy, the diff's folders) hold links
 * the agent made, and a link followed on the host reaches host files. So
 * every function here takes a trusted root and a relative path, checks every
 * component below the root with `lstat` (a component that is a link or not a
 * directory ends the walk: the path is not there), and opens files with
 * `O_NOFOLLOW`. The agent's processes have ended when these run (the sandbox
 * kills its whole PID namespace), so nothing moves the tree between a check and its use.
 */

const segments = (relative: string) => relative.split('/').filter((part) => part !== '' && part !== '.')

function checkRelative(relative: string): string[] {
  const parts = segments(relative)
  if (parts.includes('..')) throw new Error(`not a path inside its tree: ${relative}`)
  return parts
}

/** Whether every folder above `relative` (below `root`) is a real directory, not a link, a file or missing. */
export async function parentsAreDirectories(root: string, relative: string): Promise<boolean> {
  const parts = checkRelative(relative)
  let dir = root
  for (const part of parts.slice(0, -1)) {
    dir = path.join(dir, part)
    const info = await lstat(dir).catch(() => null)
    if (info === null || !info.isDirectory()) return false
  }
  return true
}

/** `lstat` of `root/relative`, or null when it is missing or hidden behind a component that is not a real directory. */
export async function lstatInside(root: string, relative: string): Promise<Stats | null> {
  if (!(await parentsAreDirectories(root, relative))) return null
  return lstat(path.join(root, ...checkRelative(relative))).catch(() => null)
}

/** The bytes of the regular file `root/relative` (null when it is not one), opened without following a link. */
export async function readFileInside(root: string, relative: string): Promise<Buffer | null> {
  const info = await lstatInside(root, relative)
  if (info === null || !info.isFile()) return null
  const handle = await open(path.join(root, relative), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null)
  if (handle === null) return null
  try {
    const opened = await handle.stat()
    if (!opened.isFile() || opened.ino !== info.ino || opened.dev !== info.dev) return null
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/** The target of the link `root/relative` (null when it is not a link). */
export async function readLinkInside(root: string, relative: string): Promise<string | null> {
  const info = await lstatInside(root, relative)
  if (info === null || !info.isSymbolicLink()) return null
  return readlink(path.join(root, relative))
}

/**
 * Makes `root/relative` a real directory, component by component. A component
 * that is a link or a file is replaced by a directory when `replace` is set
 * (the harness's own files must land there: the fix's tests, protected paths);
 * otherwise the call returns false and touches nothing.
 */
export async function directoryInside(root: string, relative: string, replace: boolean): Promise<boolean> {
  let dir = root
  for (const part of checkRelative(relative)) {
    dir = path.join(dir, part)
    const info = await lstat(dir).catch(() => null)
    if (info?.isDirectory()) continue
    if (info !== null) {
      if (!replace) return false
      await rm(dir, { force: true })
    }
    await mkdir(dir)
  }
  return true
}

/** Removes `root/relative` (a link itself, never its target; a directory with everything in it). False when a component above it is not a real directory. */
export async function removeInside(root: string, relative: string): Promise<boolean> {
  if (!(await parentsAreDirectories(root, relative))) return false
  await rm(path.join(root, ...checkRelative(relative)), { recursive: true, force: true })
  return true
}

/** What `copyEntry` did with one path. */
export type CopiedKind = 'file' | 'link' | 'missing' | 'special'

/**
 * Copies the entry `from/relative` (a regular file with its mode and times, or
 * a link as a link) to `to/relative`, replacing what was there. Missing
 * entries are removed at the target; FIFOs, sockets and devices are not
 * carried (removed at the target, returned as `special`). Nothing on either
 * side is followed. `replaceParents`: a link or file above the target is
 * replaced by a directory (else such a path is left alone, as `missing`).
 */
export async function copyEntry(from: string, to: string, relative: string, replaceParents = false): Promise<CopiedKind> {
  const info = await lstatInside(from, relative)
  const kind: CopiedKind = info === null ? 'missing' : info.isFile() ? 'file' : info.isSymbolicLink() ? 'link' : info.isDirectory() ? 'missing' : 'special'
  const parent = path.posix.dirname(relative)
  if (!(await directoryInside(to, parent === '.' ? '' : parent, replaceParents))) return 'missing'
  const target = path.join(to, relative)
  await rm(target, { recursive: true, force: true })
  if (kind === 'link') await symlink(await readlink(path.join(from, relative)), target)
  if (kind === 'file') {
    const content = await readFileInside(from, relative)
    if (content === null) return 'missing'
    const handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, info!.mode & 0o777)
    try {
      await handle.writeFile(content)
      await handle.chmod(info!.mode & 0o777)
    } finally {
      await handle.close()
    }
    await utimes(target, info!.atime, info!.mtime)
  }
  return kind
}

/**
 * Copies the tree `from` into the empty folder `to` without following any
 * link in it: directories, regular files and links are copied, FIFOs, sockets
 * and devices are left out (their paths returned, relative to `from`).
 */
export async function copyTreeInside(from: string, to: string, relative = ''): Promise<string[]> {
  const left: string[] = []
  const entries = await readdir(path.join(from, relative), { withFileTypes: true })
  for (const entry of entries) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`
    if (entry.isDirectory()) {
      await mkdir(path.join(to, child))
      left.push(...(await copyTreeInside(from, to, child)))
    } else if ((await copyEntry(from, to, child)) === 'special') {
      left.push(child)
    }
  }
  return left
}

/**
 * Removes a tree the agent may have made arbitrarily deep: Node's recursive
 * `rm` gives up past PATH_MAX (ENAMETOOLONG), which would lose the run in its
 * clean-up; GNU `rm -rf` walks with `openat` and follows no link.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENAMETOOLONG') throw error
    const result = await runProcess({ file: 'rm', args: ['-rf', '--one-file-system', '--', dir] }, { cwd: '/', env: { PATH: '/usr/bin:/bin' }, sandbox: UNSANDBOXED_HOST })
    if (result.exitCode !== 0) throw new Error(`rm -rf ${dir} failed (exit ${result.exitCode ?? result.signal}): ${result.stderr.slice(-500)}`)
  }
}
