import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { HarnessFailure } from '../errors.ts'
import { applyReferenceSolution, referenceSolution } from '../tasks/solution.ts'
import type { Task } from '../tasks/task.ts'
import type { GoldEdit, ScriptedTask } from './types.ts'

/**
 * What the scripted model knows about a task before the session: the
 * workspace's files and the reference fix as whole-file before/after pairs.
 * Learnt by applying the task's reference solution (a git-fix task's
 * `solution/gold.patch`, a folder task's patch or `solve.sh`) to a scratch
 * copy of the workspace and comparing the two trees, so it works for any
 * task the `gold` agent can solve.
 */

const SKIPPED = new Set(['.git', 'node_modules'])

/** Files under `dir`, relative with POSIX separators, sorted; `.git` and `node_modules` left out. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => !file.split('/').some((segment) => SKIPPED.has(segment)))
    .sort()
}

async function readOrNull(file: string): Promise<string | null> {
  return readFile(file, 'utf8').catch(() => null)
}

/** The files that differ between two trees, with their contents on each side. */
export async function diffTrees(beforeDir: string, afterDir: string): Promise<GoldEdit[]> {
  const [before, after] = await Promise.all([listFiles(beforeDir), listFiles(afterDir)])
  const edits: GoldEdit[] = []
  for (const file of [...new Set([...before, ...after])].sort()) {
    const [a, b] = await Promise.all([readOrNull(path.join(beforeDir, file)), readOrNull(path.join(afterDir, file))])
    if (a !== b) edits.push({ path: file, before: a, after: b })
  }
  return edits
}

/**
 * Learns the task for a scripted session in `workspace` (before the agent
 * starts). A task without a reference solution gives no edits: the model
 * explores and finishes without changing anything.
 */
export async function learnScriptedTask(task: Task, workspace: string, env: Readonly<Record<string, string>> = { PATH: process.env.PATH ?? '' }): Promise<ScriptedTask> {
  const files = await listFiles(workspace)
  const solution = referenceSolution(task)
  if (solution === null) return { id: task.id, prompt: task.prompt, files, edits: [] }
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'scripted-task-'))
  try {
    const copy = path.join(scratch, 'ws')
    await cp(workspace, copy, { recursive: true, filter: (source) => !SKIPPED.has(path.basename(source)) })
    const result = await applyReferenceSolution(solution, { cwd: copy, env })
    if (result.exitCode !== 0) {
      throw new HarnessFailure(
        'setup',
        `${task.id}: the scripted model could not learn the fix: ${solution.path} failed (exit ${result.exitCode}): ${result.output.slice(-1000)}`,
        {
          retryable: false,
        },
      )
    }
    return { id: task.id, prompt: task.prompt, files, edits: await diffTrees(workspace, copy) }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}
