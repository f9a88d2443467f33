import type { GitFixTask } from '../tasks/task.ts'
import { layeredWorkspace, type LayeredWorkspaceOptions } from './layered-workspace.ts'
import { checkedTemplate, parentTemplate } from './template.ts'
import type { Workspace } from './workspace.ts'

/**
 * A fresh workspace for a git-fix task over its template: a one-commit
 * repository of the fix's parent (fixed author and date, no later history,
 * no fix, no oracle tests), exported once per (repository, parent) and
 * shared, read-only, by every run. When this process has checked the template
 * before, the workspace is mounted while its seal is checked (two processes,
 * two cores), and made again from `parentTemplate` if the seal moved.
 */
export async function createGitFixWorkspace(task: GitFixTask, parentDir: string, options: LayeredWorkspaceOptions = { overlay: true }): Promise<Workspace> {
  const checked = await checkedTemplate(task.repo, task.metadata.base)
  if (checked !== undefined) {
    const making = layeredWorkspace(task, checked.dir, parentDir, options)
    const [workspace, unchanged] = await Promise.allSettled([making, checked.stillChecked()])
    if (unchanged.status === 'fulfilled' && unchanged.value) {
      if (workspace.status === 'rejected') throw workspace.reason
      return workspace.value
    }
    if (workspace.status === 'fulfilled') await workspace.value.dispose()
  }
  return layeredWorkspace(task, await parentTemplate(task.repo, task.metadata.base), parentDir, options)
}
