import type { GitFixTask } from '../tasks/task.ts'
import type { Workspace } from './workspace.ts'

/** A fresh workspace for a git-fix task: a one-commit repository of the fix's parent. */
export async function createGitFixWorkspace(task: GitFixTask, _parentDir: string): Promise<Workspace> {
  throw new Error(`${task.id}: git-fix workspaces are not built yet (issue 4)`)
}
