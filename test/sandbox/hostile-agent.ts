import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createAgent } from '../../src/agents/index.ts'
import { resolveExperiment, type LoadedExperiment } from '../../src/experiment/load.ts'
import { artifactsPath, executeRun, type RunContext } from '../../src/runs/execute.ts'
import type { RunRecord } from '../../src/runs/record.ts'
import { loadTask } from '../../src/tasks/load.ts'
import { writeFolderTasks } from '../helpers/experiment-fixture.ts'

/**
 * A hostile `command` agent through the real path: a throwaway project (a
 * folder task whose verify.sh wants `right` in value.txt, its solution, an
 * output folder), the agent a bash script written by the test and kept in the
 * project's task set folder like a user's would be, and `executeRun` doing
 * what a Vitest case does: workspace overlay, sandbox, agent, oracle, record.
 */

/** The script's last line: the result the command agent must print. */
export const RESULT_LINE = `echo '{"status":"completed","costUsd":0.01}'`

/** A project with one folder task and a hostile command agent. */
export interface HostileProject {
  readonly root: string
  readonly workspaceRoot: string
  readonly experiment: LoadedExperiment
  /** Runs the agent once (seed `seed`, arm `a` unless named) and returns the record and its transcript. */
  run(seed?: number, arm?: 'a' | 'b'): Promise<{ record: RunRecord; transcript: string; artifacts: string }>
}

/** How the project's experiment differs from the default. */
export interface HostileOptions {
  readonly agentOptions?: Record<string, unknown>
  /** Another agent instead of the command agent (a real CLI against the scripted model; the script is then unused). */
  readonly agent?: Record<string, unknown>
  readonly sandbox?: unknown
  readonly timeoutSeconds?: number
  /** Arm `a`'s setup commands (run before the agent, in the same sandbox). */
  readonly setupCommands?: readonly string[]
  /** Arm `a`'s hooks (the manipulation check). */
  readonly armHooks?: readonly string[]
  /** The folder task's files and metadata, where they differ from the default (value.txt must say `right`). */
  readonly task?: { readonly starting?: Record<string, string>; readonly verify?: string; readonly metadata?: Record<string, unknown> }
}

/** Where things are, for a script that goes looking for them. */
export interface HostilePaths {
  /** The project root (tasks/, out/). */
  readonly root: string
  /** Where the run's workspaces (and other runs') are made. */
  readonly workspaceRoot: string
}

/** Makes the project; `script` gives the agent's body (bash), `RESULT_LINE` is appended. */
export async function hostileProject(script: string | ((paths: HostilePaths) => string), options: HostileOptions = {}): Promise<HostileProject> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'hostile-project-'))
  // Readable by all, as a user's checkout is: what keeps the project out of sight is the sandbox's mounts, not mkdtemp's 0700.
  await chmod(root, 0o755)
  const workspaceRoot = await mkdtemp(path.join(os.tmpdir(), 'hostile-workspaces-'))
  return openProject(root, workspaceRoot, script, options, true)
}

/** The repository's root (where node_modules is). */
export function repoRootOf(): string {
  return path.resolve(import.meta.dirname, '../..')
}

/** In a child process (the SIGKILL test): opens the project the parent made and runs it once. */
export async function hostileRunFromEnv(): Promise<void> {
  const project = await openProject(process.env.HOSTILE_ROOT!, process.env.HOSTILE_WORKSPACES!, '', {}, false)
  await project.run()
}

async function openProject(
  root: string,
  workspaceRoot: string,
  script: string | ((paths: HostilePaths) => string),
  options: HostileOptions,
  write: boolean,
): Promise<HostileProject> {
  const setDir = path.join(root, 'tasks', 'fixture')
  const agentFile = path.join(setDir, 'agent.sh')
  if (write) await writeProject(root, workspaceRoot, setDir, agentFile, script, options.task)
  else options = JSON.parse(await readFile(path.join(root, 'options.json'), 'utf8'))
  await writeFile(path.join(root, 'options.json'), JSON.stringify(options))
  return projectOf(root, workspaceRoot, setDir, options)
}

async function writeProject(
  root: string,
  workspaceRoot: string,
  setDir: string,
  agentFile: string,
  script: string | ((paths: HostilePaths) => string),
  task: HostileOptions['task'] = {},
): Promise<void> {
  await writeFolderTasks(setDir, [
    {
      id: '001-value',
      starting: task.starting ?? { 'value.txt': 'wrong\n' },
      verify: task.verify ?? 'grep -qx right value.txt',
      solve: 'echo right > value.txt',
      ...(task.metadata === undefined ? {} : { metadata: task.metadata }),
    },
  ])
  const body = typeof script === 'string' ? script : script({ root, workspaceRoot })
  await writeFile(agentFile, `#!/usr/bin/env bash\n${body}\n${RESULT_LINE}\n`)
  await chmod(agentFile, 0o755)
}

async function projectOf(root: string, workspaceRoot: string, setDir: string, options: HostileOptions): Promise<HostileProject> {
  const spec = {
    name: 'hostile',
    stage: 'example',
    agent: options.agent ?? { kind: 'command', bin: './agent.sh', options: { allowZeroCost: true, killGraceSeconds: 0.2, ...options.agentOptions } },
    arms: {
      a: { ...(options.setupCommands === undefined ? {} : { setup: { commands: options.setupCommands } }), ...(options.armHooks === undefined ? {} : { hooks: options.armHooks }) },
      b: {},
    },
    control: 'a',
    budgetUsd: 0.5,
    timeoutSeconds: options.timeoutSeconds ?? 60,
    oracleTimeoutSeconds: 30,
    retries: { attempts: 1, backoffSeconds: 0 },
    output: path.join(root, 'out'),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
  }
  const experiment = resolveExperiment({ default: spec }, { file: path.join(setDir, 'experiment.ts'), root })
  const task = await loadTask(path.join(setDir, '001-value'), root)
  const agent = createAgent(experiment.spec.agent, { experimentDir: setDir, root })
  const agentVersion = await agent.version({ PATH: process.env.PATH ?? '' })
  return {
    root,
    workspaceRoot,
    experiment,
    async run(seed = 1, arm: 'a' | 'b' = 'a') {
      const context: RunContext = { experiment, task, arm, seed, order: 0, specSha256: 'c'.repeat(64), agent, agentVersion, workspaceRoot }
      const record = await executeRun(context)
      const artifacts = path.join(experiment.outDir, artifactsPath({ task: task.id, arm, seed }))
      const transcript = await readFile(path.join(artifacts, 'transcript.jsonl'), 'utf8')
      return { record, transcript, artifacts }
    },
  }
}

/** Lines of `text` that start with `prefix`, the prefix removed. */
export function tagged(text: string, prefix: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length))
}
