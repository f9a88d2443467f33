import { randomUUID } from 'node:crypto'
import { rename, rm, unlink } from 'node:fs/promises'
import path from 'node:path'
import type { CacheEntry, CacheListing } from './cache.ts'
import { entryUsers } from './cache.ts'
import { liveUsers, USES_FOLDER } from './cache-uses.ts'

/**
 * `cache prune`: which entries of the cache go (a pure plan), then their
 * removal, each moved aside first and removed only when no live process
 * marked it meanwhile. Links are never followed nor removed.
 */

/** A prepare lasts minutes: a `.building-…` folder older than this was left by a process that died. */
export const ABANDONED_BUILD_MS = 24 * 3600 * 1000

/** What to remove: entries the given tasks do not use, entries unused for a while, or (both given) entries that are both. */
export interface PruneCriteria {
  /** The cache entries the tasks of the given folders use (`taskCacheNames`); absent: every entry counts as unused. */
  readonly usedByTasks?: ReadonlyMap<string, readonly string[]>
  /** Only entries whose last use is longer ago than this (ms). */
  readonly olderThanMs?: number
  /** Now, ms since the epoch. */
  readonly nowMs: number
}

/** The plan: what goes, and what would have gone but a live process may be using. */
export interface PrunePlan {
  readonly remove: readonly CacheEntry[]
  readonly inUse: readonly CacheEntry[]
}

const REMOVABLE = new Set(['template', 'dependencies', 'dependencies (first layout)', 'stored folder', 'failed prepare', 'scratch'])

/** Decides what `cache prune` removes (see `PruneCriteria`); a stored folder goes only when no kept entry names it. */
export function planPrune(listing: CacheListing, criteria: PruneCriteria): PrunePlan {
  const users = entryUsers(listing, criteria.usedByTasks ?? new Map())
  const old = (entry: CacheEntry) => criteria.olderThanMs === undefined || criteria.nowMs - entry.lastUseMs > criteria.olderThanMs
  const unused = (entry: CacheEntry) => criteria.usedByTasks === undefined || (users.get(entry.name) ?? []).length === 0
  const selected = (entry: CacheEntry): boolean => {
    if (entry.link || !REMOVABLE.has(entry.kind)) return false
    if (entry.kind === 'scratch') return entry.name.startsWith('.removing-') || criteria.nowMs - entry.lastUseMs > ABANDONED_BUILD_MS
    return unused(entry) && old(entry)
  }
  const remove: CacheEntry[] = []
  const inUse: CacheEntry[] = []
  const decide = (entry: CacheEntry) => (entry.livePids.length > 0 ? inUse : remove).push(entry)
  const going = new Set<string>()
  for (const entry of listing.entries) {
    if (entry.kind === 'stored folder' || !selected(entry)) continue
    decide(entry)
    if (entry.livePids.length === 0) going.add(entry.name)
  }
  const named = new Set(listing.entries.filter((entry) => entry.store !== null && !going.has(entry.name)).map((entry) => entry.store))
  for (const entry of listing.entries) if (entry.kind === 'stored folder' && !named.has(entry.name) && selected(entry)) decide(entry)
  return { remove, inUse }
}

/** What a prune did (or, dry, would do). */
export interface PruneResult {
  readonly removed: readonly CacheEntry[]
  /** Planned, but a live process marked it before it went (it was put back). */
  readonly markedMeanwhile: readonly CacheEntry[]
  readonly freedBytes: number
}

/**
 * Removes the plan's entries from the cache at `root` (nothing when `dryRun`):
 * each is renamed aside, its markers read again, and put back if a live
 * process marked it meanwhile; then removed (a link inside is removed, never
 * followed). Stale use markers go too.
 */
export async function prune(root: string, listing: CacheListing, plan: PrunePlan, options: { readonly dryRun: boolean }): Promise<PruneResult> {
  if (options.dryRun) return { removed: plan.remove, markedMeanwhile: [], freedBytes: plan.remove.reduce((sum, entry) => sum + entry.bytes, 0) }
  const removed: CacheEntry[] = []
  const markedMeanwhile: CacheEntry[] = []
  for (const entry of plan.remove) {
    const full = path.join(root, entry.name)
    if (liveUsers(root, entry.name).length > 0) {
      markedMeanwhile.push(entry)
      continue
    }
    const aside = path.join(root, `.removing-${randomUUID()}`)
    try {
      await rename(full, aside)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw error
    }
    if (liveUsers(root, entry.name).length > 0) {
      // Marked after the first look: put it back (unless the process already made it anew; then the aside copy goes).
      const back = await rename(aside, full).then(
        () => true,
        () => false,
      )
      if (back) {
        markedMeanwhile.push(entry)
        continue
      }
    }
    await rm(aside, { recursive: true, force: true })
    if (!entry.name.includes('/')) await unlink(path.join(root, USES_FOLDER, entry.name)).catch(() => undefined)
    removed.push(entry)
  }
  for (const marker of listing.staleMarkers) await unlink(marker).catch(() => undefined)
  return { removed, markedMeanwhile, freedBytes: removed.reduce((sum, entry) => sum + entry.bytes, 0) }
}
