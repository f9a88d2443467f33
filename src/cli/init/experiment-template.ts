/**
 * The `tasks/<set>/experiment.ts` that `task-outcome init` writes: a pilot and
 * its smoke test over the set, importing the installed package by name.
 */
export function experimentTemplate(set: string): string {
  return `import { defineExperiment, type ExperimentInput } from 'task-outcome'

// A real experiment on your own repository: Claude Code with a real model, two arms
// (baseline and the add-on under test), 3 seeds per task. Written by \`npx task-outcome init\`.
//
//   1. Make the task folders here (tasks/${set}/NNN-slug/) with \`task-outcome harvest\` and \`select\`.
//   2. Put your credentials in the environment (passed to the agent by name, nothing else is):
//        export ANTHROPIC_API_KEY=…        (or CLAUDE_CODE_OAUTH_TOKEN from \`claude setup-token\`)
//   3. Replace the \`tool\` arm's setup with how a user installs your add-on, pin its version, name its hooks.
//   4. \`npx vitest run --project ${set}-smoke\` (2 tasks × 1 seed, its own output folder), then
//      \`npx vitest run --project ${set}\`.

const common = {
  description: 'Does the tool make Claude Code finish these tasks for less, without finishing fewer of them?',
  tasks: '.',
  // Pin the model: a resume refuses to mix models.
  agent: { kind: 'claude-code', model: 'claude-sonnet-4-5' },
  arms: {
    baseline: { description: 'Claude Code as installed' },
    tool: {
      description: 'the add-on under test, installed the way a user installs it',
      // How a user installs it, e.g. setup: { commands: ['pipx install my-tool==1.2.3', 'my-tool init'] },
      // or setup: { files: { '.claude/settings.json': 'my-tool/settings.json' } } (paths relative to this file).
      setup: { commands: [] },
      // Manipulation check: the hook events the tool installs; a tool-arm run in which none fired is a harness failure.
      hooks: [],
      tool: { name: 'my-tool', version: '0.0.0' },
    },
  },
  control: 'baseline',
  budgetUsd: 2,
  timeoutSeconds: 1800,
  oracleTimeoutSeconds: 600,
  retries: { attempts: 3, backoffSeconds: 30 },
  env: { pass: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'] },
  // Executables of the tool to take off the baseline's PATH (a host install must not leak into it).
  cleanPath: [],
  maxWorkers: 2,
} satisfies Omit<ExperimentInput, 'name'>

/** The pilot: every task, 3 seeds; exploratory, labelled "pilot". */
export const pilot = defineExperiment({ ...common, name: '${set}', stage: 'pilot', seeds: 3 })

/** The smoke test: the first two tasks, one seed per arm, in its own output folder, never pooled with the pilot. */
export const smoke = defineExperiment({ ...common, name: '${set}-smoke', stage: 'smoke', tasks: { dir: '.', first: 2 }, seeds: 1 })
`
}
