import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { AgentRunRequest } from '../../../src/agents/types.ts'
import type { AgentSpec } from '../../../src/experiment/schema.ts'
import { loadTask } from '../../../src/tasks/load.ts'
import type { FolderTask } from '../../../src/tasks/task.ts'
import { writeFolderTasks } from '../../helpers/experiment-fixture.ts'

/**
 * A small JavaScript project with a bug in `src/greet.js`, as a real folder
 * task (loaded by the harness's own loader), and fresh workspaces of it, for
 * tests that run the real Claude Code CLI.
 */

export const GREET_BEFORE = 'export function greet(name) {\n  return `Hello, ${name}`\n}\n'
export const GREET_AFTER = 'export function greet(name) {\n  return `Hello, ${name}!`\n}\n'

/** Everything one test needs, removed by `dispose`. */
export interface Sandbox {
  readonly dir: string
  readonly task: FolderTask
  /** A fresh copy of the task's `starting/`. */
  workspace(name?: string): Promise<string>
  /** A request for the claude-code adapter: allowlisted env (PATH, an empty HOME), fast CLI retries. */
  request(workspace: string, overrides?: Partial<AgentRunRequest>): Promise<AgentRunRequest>
  dispose(): Promise<void>
}

export async function makeSandbox(): Promise<Sandbox> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'claude-code-test-'))
  const setDir = path.join(dir, 'tasks')
  await writeFolderTasks(setDir, [
    {
      id: '001-greeting-punctuation',
      prompt: 'Running `node bin/cli.js Ada` prints `Hello, Ada` but the greeting should end with an exclamation mark. Please fix the greeting.\n',
      starting: {
        'package.json': '{ "name": "greeter", "type": "module" }\n',
        'bin/cli.js':
          "import { greet } from '../src/greet.js'\nimport { shout } from '../src/format.js'\nconsole.log(process.argv.includes('--loud') ? shout(greet(process.argv[2])) : greet(process.argv[2]))\n",
        'src/greet.js': GREET_BEFORE,
        'src/format.js': 'export function shout(text) {\n  return text.toUpperCase()\n}\n',
        'src/names.js': "export const DEFAULT_NAME = 'world'\n",
        'README.md': '# greeter\n\nPrints a greeting.\n',
      },
      verify: '[ "$(node bin/cli.js Ada)" = "Hello, Ada!" ]',
      solve: "sed -i 's/Hello, ${name}`/Hello, ${name}!`/' src/greet.js",
    },
  ])
  const task = (await loadTask(path.join(setDir, '001-greeting-punctuation'), dir)) as FolderTask
  let workspaces = 0
  return {
    dir,
    task,
    async workspace(name = `ws-${++workspaces}`) {
      const target = path.join(dir, name)
      await cp(task.startingDir, target, { recursive: true })
      return target
    },
    async request(workspace, overrides = {}) {
      const home = path.join(dir, `home-${path.basename(workspace)}`)
      const artifacts = path.join(dir, `artifacts-${path.basename(workspace)}`)
      await mkdir(home, { recursive: true })
      await mkdir(artifacts, { recursive: true })
      return {
        task,
        workspace,
        prompt: task.prompt,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CLAUDE_CODE_MAX_RETRIES: '0' },
        budgetUsd: 5,
        timeoutMs: 60_000,
        transcriptPath: path.join(artifacts, 'transcript.jsonl'),
        expectedHooks: [],
        arm: 'baseline',
        seed: 1,
        ...overrides,
      }
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}

/** A claude-code agent spec (the scripted model's default price table: Sonnet 4.5). */
export function claudeSpec(overrides: Partial<AgentSpec> = {}): AgentSpec {
  return { kind: 'claude-code', model: 'claude-sonnet-4-5', args: [], options: {}, ...overrides }
}

/** Writes a file into a workspace. */
export async function put(workspace: string, file: string, content: string): Promise<void> {
  await mkdir(path.dirname(path.join(workspace, file)), { recursive: true })
  await writeFile(path.join(workspace, file), content)
}

/** Claude Sonnet 4.5 list prices per token (what the CLI's own price table uses), to check its cost independently. */
export const SONNET_45 = { input: 3e-6, output: 15e-6, cacheWrite: 3.75e-6, cacheRead: 0.3e-6 }
