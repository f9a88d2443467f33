import { mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import type { GitFixTask } from '../tasks/task.ts'
import { gitWorkspace } from './git-workspace.ts'
import { copyTemplate, parentTemplate } from './template.ts'
import type { Workspace } from './workspace.ts'

/**
 * A fresh workspace for a git-fix task: a one-commit repository of the fix's
 * parent (fixed author and date, no later history, no fix, no oracle tests),
 * copied from the task's template, which is exported once per (repository,
 * parent) and shared by every run.
 */
export async function createGitFixWorkspace(task: GitFixTask, parentDir: string): Promise<Workspace> {
  const template = await parentTemplate(task.repo, task.metadata.base)
  const dir = await mkdtemp(path.join(parentDir, `${task.id}-`))
  try {
    await copyTemplate(template, dir)
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
  return gitWorkspace(dir, task)
}
