import type { GitFixTask } from '../tasks/task.ts'
import { layeredWorkspace, type LayeredWorkspaceOptions } from './layered-workspace.ts'
import { parentTemplate } from './template.ts'
import type { Workspace } from './workspace.ts'

/**
 * A fresh workspace for a git-fix task over its template: a one-commit
 * repository of the fix's parent (fixed author and date, no later history,
 * no fix, no oracle tests), exported once per (repository, parent) and
 * shared, read-only, by every run.
 */
export async function createGitFixWorkspace(task: GitFixTask, parentDir: string, options: LayeredWorkspaceOptions = { overlay: true }): Promise<Workspace> {
  return layeredWorkspace(task, await parentTemplate(task.repo, task.metadata.base), parentDir, options)
}
