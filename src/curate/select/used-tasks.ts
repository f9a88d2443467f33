import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { ProblemsError, type Problem } from '../../errors.ts'
import { listTaskDirs } from '../../tasks/load.ts'
import { TaskMetadataSchema } from '../../tasks/metadata.ts'

/** A fix commit an earlier task set already used, and where. */
export interface UsedTask {
  /** The earlier task set, as given. */
  readonly set: string
  /** Its task folder's name. */
  readonly task: string
}

/** One earlier task set and how many fix commits it holds. */
export interface UsedTaskSet {
  readonly dir: string
  readonly tasks: number
}

/**
 * The fix commits of earlier task sets (a pilot's, a smoke test's), read from
 * each task folder's metadata.json: a confirmatory draw skips them, so it
 * uses only tasks none of them used. Every problem (a missing folder, a folder
 * task, unreadable metadata) is reported at once.
 */
export async function readUsedTasks(sets: readonly string[]): Promise<{ used: Map<string, UsedTask>; sets: UsedTaskSet[] }> {
  const used = new Map<string, UsedTask>()
  const problems: Problem[] = []
  const summary: UsedTaskSet[] = []
  for (const set of sets) {
    const isDir = await stat(set).then(
      (entry) => entry.isDirectory(),
      () => false,
    )
    if (!isDir) {
      problems.push({ file: set, message: 'no such task set folder (--exclude-tasks-of names an earlier task set, e.g. tasks/pilot)' })
      continue
    }
    const dirs = await listTaskDirs(set)
    if (dirs.length === 0) problems.push({ file: set, message: 'holds no task folders, so it excludes nothing: check the path' })
    let count = 0
    for (const dir of dirs) {
      const file = path.join(dir, 'metadata.json')
      const parsed = TaskMetadataSchema.safeParse(
        await readFile(file, 'utf8').then(
          (text) => JSON.parse(text) as unknown,
          () => undefined,
        ),
      )
      if (!parsed.success) {
        problems.push({ file, message: 'not a readable task metadata.json: run `task-outcome validate` on that set' })
        continue
      }
      if (parsed.data.kind !== 'git-fix') {
        problems.push({ file, message: 'a folder task: only git-fix tasks come from a candidates file, so it cannot be excluded from a draw' })
        continue
      }
      count++
      if (!used.has(parsed.data.fix)) used.set(parsed.data.fix, { set, task: path.basename(dir) })
    }
    summary.push({ dir: set, tasks: count })
  }
  if (problems.length > 0) throw new ProblemsError('The task sets to exclude cannot be read:', problems)
  return { used, sets: summary }
}
