import { cp, mkdtemp } from 'node:fs/promises'
import path from 'node:path'
import type { FolderTask } from '../tasks/task.ts'
import { commitAll } from './git.ts'
import { gitWorkspace } from './git-workspace.ts'
import type { Workspace } from './workspace.ts'

/** A fresh workspace for a folder task: a copy of `starting/`, made a one-commit git repository. */
export async function createFolderWorkspace(task: FolderTask, parentDir: string): Promise<Workspace> {
  const dir = await mkdtemp(path.join(parentDir, `${task.id}-`))
  await cp(task.startingDir, dir, { recursive: true })
  await commitAll(dir, `${task.id}: starting point`)
  return gitWorkspace(dir, task)
}
