import path from 'node:path'
import type { Command } from 'commander'
import { SpecError } from '../../errors.ts'
import { formatTable } from '../../format/table.ts'
import { loadTaskSet } from '../../tasks/load.ts'
import type { Task } from '../../tasks/task.ts'
import { entryUsers, listCache, taskCacheNames, type CacheEntry, type CacheListing } from '../../workspace/cache.ts'
import { planPrune, prune } from '../../workspace/cache-prune.ts'
import { templateRoot } from '../../workspace/template.ts'

const DAY_MS = 24 * 3600 * 1000

/** `12.3 MB`: sizes as the cache table prints them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`
}

function ago(ms: number, nowMs: number): string {
  const days = (nowMs - ms) / DAY_MS
  if (days < 1 / 24) return `${Math.max(0, Math.round((nowMs - ms) / 60_000))} min ago`
  if (days < 1) return `${Math.round(days * 24)} h ago`
  return `${Math.round(days)} d ago`
}

function usedBy(entry: CacheEntry, users: ReadonlyMap<string, readonly string[]>, listing: CacheListing): string {
  const parts: string[] = []
  const ids = users.get(entry.name) ?? []
  if (ids.length > 0) parts.push(ids.length <= 3 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')} and ${ids.length - 3} more`)
  if (entry.kind === 'stored folder') {
    const keys = listing.entries.filter((other) => other.store === entry.name).map((other) => other.name)
    parts.push(keys.length === 0 ? 'no entry names it' : `${keys.length === 1 ? 'entry' : 'entries'} ${keys.join(', ')}`)
  }
  if (entry.kind === 'dependencies' && entry.store !== null) parts.push(`→ ${entry.store}`)
  if (entry.livePids.length > 0) parts.push(`in use by process ${entry.livePids.join(', ')}`)
  if (entry.link) parts.push('a link (never followed)')
  return parts.join('; ')
}

/** The `cache show` table: one row per entry, then the total. */
export function formatCache(listing: CacheListing, users: ReadonlyMap<string, readonly string[]>, nowMs: number): string {
  const total = listing.entries.reduce((sum, entry) => sum + entry.bytes, 0)
  const rows = listing.entries.map((entry) => [entry.name, entry.kind, formatBytes(entry.bytes), ago(entry.lastUseMs, nowMs), usedBy(entry, users, listing)])
  return `${formatTable([['entry', 'kind', 'size', 'last use', 'used by'], ...rows])}\ntotal ${formatBytes(total)} in ${listing.entries.length} entries (${listing.root})`
}

async function tasksOf(folders: readonly string[]): Promise<Task[]> {
  const tasks: Task[] = []
  for (const folder of folders) tasks.push(...(await loadTaskSet(path.resolve(folder))))
  return tasks
}

function days(value: string): number {
  const parsed = Number(value)
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) throw new SpecError(`cache prune: --older-than takes a number of days (0 or more), not "${value}"`)
  return parsed
}

/** `task-outcome cache [show|prune]`: the template and dependency cache, listed and pruned. */
export function registerCache(program: Command): void {
  const cache = program
    .command('cache')
    .description(
      "Show or prune the cache of templates (each task's starting commit as a one-commit repository) and prepared dependency " +
        'folders (node_modules) in $TASK_OUTCOME_TEMPLATES (default: <tmp>/task-outcome-templates). Dependency folders are ' +
        'stored once per content (content-<digest>); each recipe (deps-<key>: lockfile, package manager, Node major, platform) ' +
        'names the stored folder it made. Bare `cache` is `cache show`.',
    )
    .option('--root <folder>', 'the cache folder', templateRoot())
  const show = async (options: { root: string; tasks?: string[] }) => {
    const root = path.resolve(options.root)
    const listing = await listCache(root)
    if (listing.entries.length === 0) {
      process.stdout.write(`the cache ${root} is empty (nothing prepared yet, or TASK_OUTCOME_TEMPLATES points elsewhere)\n`)
      return
    }
    const users = entryUsers(listing, await taskCacheNames(await tasksOf(options.tasks ?? [])))
    process.stdout.write(`${formatCache(listing, users, Date.now())}\n`)
  }
  cache
    .command('show', { isDefault: true })
    .description('List every entry with its size on disk, what uses it (task ids with --tasks, the recipes naming a stored folder, live processes), its last use, and the total.')
    .option('--tasks <folders...>', 'task set folders whose tasks to name as users')
    .action(async (options: { tasks?: string[] }) => show({ ...cache.opts<{ root: string }>(), ...options }))
  cache
    .command('prune')
    .description(
      'Remove the entries the tasks of the given folders do not use (--tasks), or not used for some days (--older-than), or, both ' +
        'given, only entries that are both; a stored folder goes once no kept recipe names it. An entry a running process marked ' +
        '(in <cache>/.uses/) is kept. Links in the cache are never followed. Prints what it removed and the space freed.',
    )
    .option('--tasks <folders...>', 'task set folders whose tasks keep their entries')
    .option('--older-than <days>', 'only entries whose last use is more than this many days ago', days)
    .option('--dry-run', 'print what would be removed, remove nothing', false)
    .addHelpText('after', '\nExamples:\n  npx task-outcome cache prune --tasks tasks/pilot --dry-run\n  npx task-outcome cache prune --older-than 30\n')
    .action(async (options: { tasks?: string[]; olderThan?: number; dryRun: boolean }) => {
      const root = path.resolve(cache.opts<{ root: string }>().root)
      if (options.tasks === undefined && options.olderThan === undefined) {
        throw new SpecError('cache prune: give --tasks <folder...> (remove what those tasks do not use) or --older-than <days> (remove what was not used for that long), or both')
      }
      const listing = await listCache(root)
      const usedByTasks = options.tasks === undefined ? undefined : await taskCacheNames(await tasksOf(options.tasks))
      const plan = planPrune(listing, {
        ...(usedByTasks === undefined ? {} : { usedByTasks }),
        ...(options.olderThan === undefined ? {} : { olderThanMs: options.olderThan * DAY_MS }),
        nowMs: Date.now(),
      })
      const result = await prune(root, listing, plan, { dryRun: options.dryRun })
      const verb = options.dryRun ? 'would remove' : 'removed'
      for (const entry of result.removed) process.stdout.write(`${verb} ${entry.name} (${entry.kind}, ${formatBytes(entry.bytes)})\n`)
      for (const entry of [...plan.inUse, ...result.markedMeanwhile]) {
        process.stdout.write(`kept ${entry.name} (${entry.kind}): in use by a running process${entry.livePids.length > 0 ? ` (${entry.livePids.join(', ')})` : ''}\n`)
      }
      process.stdout.write(`${options.dryRun ? 'would free' : 'freed'} ${formatBytes(result.freedBytes)} in ${result.removed.length} entries of ${root}\n`)
    })
}
