import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { packageRoot } from '../../version.ts'

/** The folder under `tasks/` and the Vitest project of the example `init` writes. */
export const EXAMPLE_SET = 'example'

/** The example's experiment file, relative to the project root (as the Vitest config names it). */
export const EXAMPLE_FILE = `tasks/${EXAMPLE_SET}/experiment.ts`

/**
 * The example's experiment: the real Claude Code CLI against the scripted model server on 127.0.0.1 (no account,
 * no network), over the three small folder tasks the package ships, with and without the demo's context hook.
 */
function exampleExperiment(): string {
  return `import { defineExperiment } from 'task-outcome'

// A first experiment that needs no account and no network, written by \`npx task-outcome init\`:
// the REAL Claude Code CLI runs each task against task-outcome's scripted model server on 127.0.0.1
// (agent.options.scriptedModel). The CLI, its tools, its hooks and its cost accounting are real; the
// model's choices (explore, read, edit, finish) are scripted and seeded. The \`context\` arm installs a
// small hook (context-tool/likely-files.mjs) that names the files the prompt's words point to.
// The numbers demonstrate the harness, not a model: every report of them carries a DEMO label.
//
//   npx vitest run --project ${EXAMPLE_SET}
export default defineExperiment({
  name: '${EXAMPLE_SET}',
  description: 'DEMONSTRATION with a scripted model: Claude Code with and without a context hook that names likely files',
  stage: 'demo',
  tasks: '.',
  agent: { kind: 'claude-code', model: 'claude-sonnet-4-5', options: { scriptedModel: true } },
  arms: {
    baseline: { description: 'Claude Code as installed' },
    context: {
      description: 'a UserPromptSubmit hook names the files most likely relevant to the prompt',
      setup: {
        files: {
          '.claude/settings.json': 'context-tool/settings.json',
          '.claude/hooks/likely-files.mjs': 'context-tool/likely-files.mjs',
        },
      },
      hooks: ['UserPromptSubmit', 'PostToolUse'],
      tool: { name: 'likely-files', version: '1.0.0' },
    },
  },
  control: 'baseline',
  seeds: 2,
  budgetUsd: 1,
  timeoutSeconds: 120,
  oracleTimeoutSeconds: 120,
  retries: { attempts: 2, backoffSeconds: 1 },
  // The local server answers at once: fail fast instead of the CLI's minutes of retries.
  env: { set: { CLAUDE_CODE_MAX_RETRIES: '1' } },
  maxWorkers: 2,
})
`
}

/** Where the package keeps what the example copies: the example task folders and the demo's context hook. */
const SHIPPED_TASKS = path.join(packageRoot, 'tasks', 'examples')
const SHIPPED_HOOK = path.join(packageRoot, 'tasks', 'demo', 'context-tool')

/**
 * Writes `tasks/example/` into the project: the three folder tasks the package ships, the context hook and
 * the experiment. Returns false, writing nothing, when the folder exists already (init never overwrites).
 */
export function writeExample(root: string): boolean {
  const dir = path.join(root, 'tasks', EXAMPLE_SET)
  if (existsSync(dir)) return false
  mkdirSync(dir, { recursive: true })
  for (const task of readdirSync(SHIPPED_TASKS, { withFileTypes: true })) {
    if (task.isDirectory()) cpSync(path.join(SHIPPED_TASKS, task.name), path.join(dir, task.name), { recursive: true })
  }
  cpSync(SHIPPED_HOOK, path.join(dir, 'context-tool'), { recursive: true })
  writeFileSync(path.join(dir, 'experiment.ts'), exampleExperiment())
  return true
}
