import { cp, mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import type { FolderTask } from '../tasks/task.ts'
import { changedSince, commitAll, diffSince, stagedTree } from './git.ts'
import type { Workspace } from './workspace.ts'

/** A fresh workspace for a folder task: a copy of `starting/`, made a one-commit git repository. */
export async function createFolderWorkspace(task: FolderTask, parentDir: string): Promise<Workspace> {
  const dir = await mkdtemp(path.join(parentDir, `${task.id}-`))
  await cp(task.startingDir, dir, { recursive: true })
  await commitAll(dir, `${task.id}: starting point`)
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
