import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import type { AgentRunRequest } from '../../src/agents/types.ts'
import type { ScriptedTask } from '../../src/scripted-model/types.ts'
import type { FolderTask } from '../../src/tasks/task.ts'

/**
 * A real git workspace with a one-line bug, and what the scripted model
 * knows about it: shared by the tests that run a real agent CLI against the
 * scripted model server (codex, gemini).
 */

export const GREET_BEFORE = 'export function greet(name) {\n  return "Hello " + name\n}\n'
export const GREET_AFTER = 'export function greet(name) {\n  return "Hello, " + name\n}\n'
export const GREET_PROMPT = 'greet() should say Hello, with a comma'

/** The scripted model's knowledge of the task: the files and the reference fix. */
export const GREET_TASK: ScriptedTask = {
  id: '001-greet-comma',
  prompt: GREET_PROMPT,
  files: ['README.md', 'src/greet.js', 'src/util.js'],
  edits: [{ path: 'src/greet.js', before: GREET_BEFORE, after: GREET_AFTER }],
}

/** One run's folders: the workspace (a fresh one-commit git repository), a HOME of its own, the artifacts folder. */
export interface RunFolders {
  readonly root: string
  readonly workspace: string
  readonly home: string
  readonly transcriptPath: string
  cleanup(): Promise<void>
}

export async function makeRunFolders(prefix: string): Promise<RunFolders> {
  const root = await mkdtemp(path.join(os.tmpdir(), `${prefix}-`))
  const workspace = path.join(root, 'workspace')
  const home = path.join(root, 'home')
  const artifacts = path.join(root, 'artifacts')
  await mkdir(path.join(workspace, 'src'), { recursive: true })
  await mkdir(home, { recursive: true })
  await mkdir(artifacts, { recursive: true })
  await writeFile(path.join(workspace, 'README.md'), '# greet\n')
  await writeFile(path.join(workspace, 'src/greet.js'), GREET_BEFORE)
  await writeFile(path.join(workspace, 'src/util.js'), 'export const id = (x) => x\n')
  const git = (...args: string[]) => execa('git', args, { cwd: workspace })
  await git('init', '-q')
  await git('add', '-A')
  await git('-c', 'user.email=test@example.com', '-c', 'user.name=test', 'commit', '-qm', 'base')
  return {
    root,
    workspace,
    home,
    transcriptPath: path.join(artifacts, 'transcript.jsonl'),
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}

/**
 * The task object of a request. Adapters never read it (they get the prompt
 * and the workspace), so a folder task with placeholder metadata will do.
 */
export function placeholderTask(folders: RunFolders): FolderTask {
  return {
    kind: 'folder',
    id: GREET_TASK.id,
    dir: folders.root,
    prompt: GREET_PROMPT,
    files: [],
    metadata: { id: '001', slug: 'greet-comma', kind: 'folder', target_skill: 'none', irrelevant_skill: 'none', category: 'bugfix', difficulty: 'easy', protect: [], editable: [] },
    startingDir: folders.workspace,
    verifyScript: path.join(folders.root, 'verify.sh'),
    solution: null,
  } as FolderTask
}

/** A run request for the folders, with a minimal environment (PATH and the run's own HOME). */
export function runRequest(folders: RunFolders, overrides: Partial<AgentRunRequest> & { env?: Record<string, string> } = {}): AgentRunRequest {
  return {
    task: placeholderTask(folders),
    workspace: folders.workspace,
    prompt: GREET_PROMPT,
    budgetUsd: 1,
    timeoutMs: 60_000,
    transcriptPath: folders.transcriptPath,
    expectedHooks: [],
    arm: 'baseline',
    seed: 1,
    ...overrides,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: folders.home, ...overrides.env },
  }
}

/**
 * Live processes that belong to a run: any whose working directory is inside
 * `dir`, or whose command line mentions it. Zombies do not count.
 */
export function processesOf(dir: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (/^\S+ \(.*\) [ZX] /.test(stat)) continue
      const cwd = readlinkSync(`/proc/${entry}/cwd`)
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ')
      if (cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir)) found.push(Number(entry))
    } catch {
      // the process ended while we looked
    }
  }
  return found
}

/**
 * The folder task with a reference solution (a script that applies the fix),
 * from which an adapter's `scriptedModel` option learns what to do.
 */
export async function taskWithSolution(folders: RunFolders): Promise<FolderTask> {
  const solve = path.join(folders.root, 'solve.sh')
  await writeFile(solve, `#!/bin/bash\nsed -i 's/"Hello "/"Hello, "/' src/greet.js\n`)
  return { ...placeholderTask(folders), solution: { kind: 'script', path: solve } }
}
