import { rm } from 'node:fs/promises'
import type { Task } from '../tasks/task.ts'
import { changedSince, diffSince, stagedTree } from './git.ts'
import type { Workspace } from './workspace.ts'

/**
 * The `Workspace` over a folder that already is the run's one-commit git
 * repository: changes are listed and diffed against the tree snapshotted
 * after arm setup (or, without a snapshot, the first time they are asked for).
 */
export function gitWorkspace(dir: string, task: Task): Workspace {
  let baseline: string | undefined
  const snapshot = async (): Promise<string> => (baseline ??= await stagedTree(dir))
  return {
    dir,
    task,
    async snapshot() {
      baseline = await stagedTree(dir)
    },
    async changedFiles() {
      return changedSince(dir, await snapshot())
    },
    async diff() {
      return diffSince(dir, await snapshot())
    },
    async dispose() {
      await rm(dir, { recursive: true, force: true })
    },
  }
}
