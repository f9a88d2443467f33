import { lstatSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * Use markers of the template and dependency cache (`templateRoot()`): in
 * `<cache>/.uses/`, `<entry>` is touched at each process's first use of that
 * entry (its modification time is the entry's last use), and
 * `<entry>@<pid>` exists while process `<pid>` may still use it (removed when
 * the process exits; one left by a killed process names a pid that is gone).
 * A process marks an entry before it looks the entry up, so `cache prune`,
 * which moves an entry aside before it looks at the markers again, either
 * sees the mark or leaves the process to find the entry gone and make it
 * anew; it never removes a folder a live process checked.
 */

/** The markers' folder inside a cache. */
export const USES_FOLDER = '.uses'

/** Markers this process made, removed when it exits. */
const mine = new Set<string>()
let cleanupRegistered = false

function removeMine(): void {
  for (const marker of mine) {
    try {
      unlinkSync(marker)
    } catch {
      // Already gone (a prune of stale markers, a removed cache): nothing to do.
    }
  }
  mine.clear()
}

/**
 * Marks `entry` of the cache at `root` as used now and in use by this
 * process until it exits. Once per (cache, entry) per process; a cache that
 * cannot be written to is left alone (the lookup that follows reports it).
 */
export function markInUse(root: string, entry: string): void {
  const dir = path.join(root, USES_FOLDER)
  const live = path.join(dir, `${entry}@${process.pid}`)
  if (mine.has(live)) return
  try {
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, entry), '')
    writeFileSync(live, '')
  } catch {
    return
  }
  mine.add(live)
  if (!cleanupRegistered) {
    cleanupRegistered = true
    process.on('exit', removeMine)
  }
}

/** Whether process `pid` is alive (a pid reused by another process counts as alive: the safe side). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** What the markers say about a cache's entries. */
export interface CacheUses {
  /** Each entry's last use (ms since the epoch), when it was ever marked. */
  readonly lastUseMs: ReadonlyMap<string, number>
  /** The live processes that may use each entry. */
  readonly livePids: ReadonlyMap<string, readonly number[]>
  /** Marker files whose process is gone (`cache prune` removes them). */
  readonly stale: readonly string[]
}

/** Reads the markers of the cache at `root` (none when it has no `.uses/`). */
export function readUses(root: string): CacheUses {
  const dir = path.join(root, USES_FOLDER)
  const lastUseMs = new Map<string, number>()
  const livePids = new Map<string, number[]>()
  const stale: string[] = []
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return { lastUseMs, livePids, stale }
  }
  for (const name of names) {
    const marker = /^(.+)@(\d+)$/.exec(name)
    if (marker === null) {
      const info = lstatSync(path.join(dir, name), { throwIfNoEntry: false })
      if (info?.isFile() === true) lastUseMs.set(name, info.mtimeMs)
      continue
    }
    const pid = Number(marker[2])
    if (alive(pid)) livePids.set(marker[1]!, [...(livePids.get(marker[1]!) ?? []), pid])
    else stale.push(path.join(dir, name))
  }
  return { lastUseMs, livePids, stale }
}

/** The live processes that may use `entry` right now (read again just before a removal). */
export function liveUsers(root: string, entry: string): readonly number[] {
  return readUses(root).livePids.get(entry) ?? []
}
