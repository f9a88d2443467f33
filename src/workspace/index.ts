import { accessSync, constants } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Task } from '../tasks/task.ts'
import { createFolderWorkspace } from './folder.ts'
import { createGitFixWorkspace } from './git-fix.ts'
import type { LayeredWorkspaceOptions } from './layered-workspace.ts'
import type { Workspace } from './workspace.ts'

/**
 * Where workspaces are made unless told otherwise: outside the project, so the
 * agent cannot climb into it; in memory (/dev/shm) where the machine has it,
 * because a run's workspace is written once and thrown away, and on a slow
 * disk making thousands of files dominates the harness's own time.
 * `TASK_OUTCOME_WORKDIR` overrides it.
 */
export function defaultWorkspaceRoot(): string {
  const override = process.env.TASK_OUTCOME_WORKDIR
  if (override !== undefined && override !== '') return override
  const memory = '/dev/shm'
  try {
    accessSync(memory, constants.W_OK)
    return path.join(memory, 'task-outcome')
  } catch {
    return path.join(os.tmpdir(), 'task-outcome')
  }
}

/**
 * Makes a fresh, isolated workspace for one run of a task: an overlay of the
 * task's template (sandboxed runs), or a plain copy of it (`overlay: false`,
 * for runs without a sandbox).
 */
export async function createWorkspace(task: Task, parentDir: string = defaultWorkspaceRoot(), options: LayeredWorkspaceOptions = { overlay: true }): Promise<Workspace> {
  await mkdir(parentDir, { recursive: true })
  return task.kind === 'folder' ? createFolderWorkspace(task, parentDir, options) : createGitFixWorkspace(task, parentDir, options)
}

export type { Workspace, WorkspaceChanges } from './workspace.ts'
export type { LayeredWorkspaceOptions } from './layered-workspace.ts'
