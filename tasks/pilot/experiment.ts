import { defineExperiment, type ExperimentInput } from '../../src/index.ts'

// TEMPLATE: a real experiment on your own repository. Claude Code with a real
// model, two arms (baseline and the tool under test), 3 seeds per task.
//
//   1. Make the task folders here (tasks/pilot/NNN-slug/):
//        npx task-outcome harvest --repo <your repo> --out candidates.json --test-command "<cmd with {tests} and {junit}>"
//        npx task-outcome select --candidates candidates.json --out tasks/pilot
//   2. Put your credentials in the environment (they are passed through by name, nothing else is):
//        export ANTHROPIC_API_KEY=…        (or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)
//   3. Replace the `tool` arm's setup with how a user installs your add-on, pin its version, name its hooks.
//   4. `npx vitest run --project smoke` (2 tasks × 1 seed, its own output folder, never pooled), then
//      `npx vitest run --project pilot`.
//
// Without task folders the project stops and says to run harvest and select;
// without credentials the first run stops at once with Claude Code's own
// message ("Not logged in"), as a harness failure: nothing is recorded.

const common = {
  description: 'Does the tool make Claude Code finish these tasks for less, without finishing fewer of them?',
  tasks: '.',
  agent: {
    kind: 'claude-code',
    // Pin the model: a resume refuses to mix models.
    model: 'claude-sonnet-4-5',
  },
  arms: {
    baseline: { description: 'Claude Code as installed' },
    tool: {
      description: 'the add-on under test, installed the way a user installs it',
      // Here: the demo's small context hook, tasks/demo/context-tool/ (replace it with yours).
      // A tool installed by a command instead: setup: { commands: ['pipx install neuralmind==4.15.1', 'neuralmind init'] },
      // and list its executable in `cleanPath` below so the baseline never sees a host install.
      setup: {
        files: {
          '.claude/settings.json': '../demo/context-tool/settings.json',
          '.claude/hooks/likely-files.mjs': '../demo/context-tool/likely-files.mjs',
        },
      },
      // Manipulation check: a tool-arm run in which none of these fired is a harness failure, not evidence.
      hooks: ['UserPromptSubmit', 'PostToolUse'],
      tool: { name: 'likely-files', version: '1.0.0' },
    },
  },
  control: 'baseline',
  budgetUsd: 2,
  timeoutSeconds: 1800,
  oracleTimeoutSeconds: 600,
  retries: { attempts: 3, backoffSeconds: 30 },
  env: { pass: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'] },
  cleanPath: [],
  maxWorkers: 2,
  // The whole experiment's spending limit: `validate` refuses a plan whose forecast passes it, and
  // while it runs no run starts when the spend so far plus the caps (budgetUsd) of the runs under way
  // plus its own cap would pass it; those runs are reported missing. A resource limit like maxWorkers:
  // outside the spec hash, so it may be raised between resumes. With --shard=i/n each shard gets 1/n.
  // Here: 20 tasks × 2 arms × 3 seeds at the $2 cap forecast $240.
  maxBudgetUsd: 250,
} satisfies Omit<ExperimentInput, 'name'>

/** The pilot: every task, 3 seeds; exploratory, labelled "pilot". */
export const pilot = defineExperiment({ ...common, name: 'pilot', stage: 'pilot', seeds: 3 })

/** The smoke test: the first two tasks, one seed per arm, in its own folder, never pooled with the pilot. */
export const smoke = defineExperiment({
  ...common,
  name: 'smoke',
  stage: 'smoke',
  tasks: { dir: '.', first: 2 },
  seeds: 1,
  output: 'bench/task_outcome/smoke',
})
