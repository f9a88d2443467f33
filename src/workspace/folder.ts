import type { FolderTask } from '../tasks/task.ts'
import { layeredWorkspace, type LayeredWorkspaceOptions } from './layered-workspace.ts'
import { folderTemplate } from './template.ts'
import type { Workspace } from './workspace.ts'

/** A fresh workspace for a folder task over its template: `starting/` made a one-commit git repository, shared read-only by every run. */
export async function createFolderWorkspace(task: FolderTask, parentDir: string, options: LayeredWorkspaceOptions = { overlay: true }): Promise<Workspace> {
  return layeredWorkspace(task, await folderTemplate(task.startingDir), parentDir, options)
}
