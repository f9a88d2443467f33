import { lstat, readdir } from 'node:fs/promises'
import path from 'node:path'
import type { Task } from '../tasks/task.ts'
import { readUses, USES_FOLDER } from './cache-uses.ts'
import { CONTENT_NAME, dependencyKey, entryStore } from './dependencies.ts'
import { folderKey, templateKey } from './template.ts'

/**
 * What the template and dependency cache (`templateRoot()`) holds: one entry
 * per top-level folder, by the kind its name says, with its size on disk,
 * what uses it and when it was last used. Read without following any link:
 * a link found in the cache counts as the link itself.
 */

/** The kinds of entry, by name: `<32 hex>` and `folder-…` templates, `deps-…` recipe entries, `content-…` stored folders. */
export type CacheEntryKind = 'template' | 'dependencies' | 'dependencies (first layout)' | 'stored folder' | 'failed prepare' | 'scratch' | 'unknown'

/** One entry of the cache. */
export interface CacheEntry {
  /** Its name, relative to the cache (`failed-prepares/<name>` for a kept log). */
  readonly name: string
  readonly kind: CacheEntryKind
  /** Bytes on disk (blocks), every inode counted once in the whole cache. */
  readonly bytes: number
  /** Its last use (the use marker's time, else the folder's modification time), ms since the epoch. */
  readonly lastUseMs: number
  /** Live processes that may be using it. */
  readonly livePids: readonly number[]
  /** The stored folder a `deps-…` entry names (null for other kinds, or an entry naming none). */
  readonly store: string | null
  /** Whether it is a link (never followed, never removed). */
  readonly link: boolean
}

/** The cache as listed: every entry, and the use markers whose process is gone. */
export interface CacheListing {
  readonly root: string
  readonly entries: readonly CacheEntry[]
  readonly staleMarkers: readonly string[]
}

function kindOf(name: string): CacheEntryKind {
  if (/^(folder-)?[0-9a-f]{32}$/.test(name)) return 'template'
  if (/^deps-[0-9a-f]{32}$/.test(name)) return 'dependencies'
  if (CONTENT_NAME.test(name)) return 'stored folder'
  if (name.startsWith('.building-') || name.startsWith('.removing-')) return 'scratch'
  return 'unknown'
}

/** Bytes on disk below `file` (itself included), links not followed, inodes already in `seen` not counted again. */
async function diskBytes(file: string, seen: Set<string>): Promise<number> {
  const info = await lstat(file, { bigint: true }).catch(() => null)
  if (info === null) return 0
  const inode = `${info.dev}:${info.ino}`
  let bytes = seen.has(inode) ? 0 : Number(info.blocks) * 512
  seen.add(inode)
  if (info.isDirectory()) {
    const names = await readdir(file).catch(() => [] as string[])
    for (const name of names) bytes += await diskBytes(path.join(file, name), seen)
  }
  return bytes
}

/** Lists the cache at `root` (an empty listing when the folder does not exist). */
export async function listCache(root: string): Promise<CacheListing> {
  const uses = readUses(root)
  const names = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[]
    throw error
  })
  const seen = new Set<string>()
  const entries: CacheEntry[] = []
  const add = async (name: string, kind: CacheEntryKind) => {
    const full = path.join(root, name)
    const info = await lstat(full).catch(() => null)
    if (info === null) return
    const link = info.isSymbolicLink()
    let actual = link ? 'unknown' : kind
    let store: string | null = null
    if (actual === 'dependencies') {
      const found = await entryStore(full)
      if (found === full) actual = 'dependencies (first layout)'
      else store = found === null ? null : path.basename(found)
    }
    entries.push({
      name,
      kind: actual,
      bytes: await diskBytes(full, seen),
      lastUseMs: uses.lastUseMs.get(name) ?? info.mtimeMs,
      livePids: uses.livePids.get(name) ?? [],
      store,
      link,
    })
  }
  for (const name of names.sort()) {
    if (name === USES_FOLDER) continue
    if (name === 'failed-prepares') {
      const info = await lstat(path.join(root, name)).catch(() => null)
      if (info?.isDirectory() === true) {
        for (const kept of (await readdir(path.join(root, name))).sort()) await add(`${name}/${kept}`, 'failed prepare')
        continue
      }
    }
    await add(name, kindOf(name))
  }
  return { root, entries, staleMarkers: uses.stale }
}

/**
 * The cache entries `tasks` use, each with the ids of the tasks that use it:
 * a git-fix task's template (repository and parent commit) and its recipe's
 * `deps-…` entry (from the SHA-256s its metadata records), a folder task's
 * template (its `starting/`'s content). Reads no repository.
 */
export async function taskCacheNames(tasks: readonly Task[]): Promise<Map<string, string[]>> {
  const users = new Map<string, string[]>()
  const use = (name: string, id: string) => users.set(name, [...(users.get(name) ?? []), id])
  for (const task of tasks) {
    if (task.kind === 'folder') {
      use(await folderKey(task.startingDir), task.id)
      continue
    }
    use(await templateKey(task.repo, task.metadata.base), task.id)
    const dependencies = task.metadata.dependencies
    if (dependencies !== undefined) {
      use(dependencyKey({ prepare: dependencies.prepare, inputs: Object.keys(dependencies.inputs), mount: dependencies.mount }, dependencies.inputs), task.id)
    }
  }
  return users
}

/** Each entry's users: the given tasks' ids for what they name, and for a stored folder the users of every entry naming it. */
export function entryUsers(listing: CacheListing, taskNames: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const users = new Map<string, string[]>()
  for (const entry of listing.entries) users.set(entry.name, [...(taskNames.get(entry.name) ?? [])])
  for (const entry of listing.entries) {
    if (entry.store === null || !users.has(entry.store)) continue
    const stored = users.get(entry.store)!
    for (const id of users.get(entry.name) ?? []) if (!stored.includes(id)) stored.push(id)
  }
  return users
}
