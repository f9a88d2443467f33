import { defineExperiment } from '../../src/index.ts'

// The embedded skill experiment: `npx vitest run --project skills-demo` needs
// no account and no network. Each task runs under the skill conditions
// (control, target, negative, full, target_plus_one, target_plus_unrelated;
// the negative-control task 004 runs control, full and sanity), each in a
// fresh workspace holding exactly its skills in `.claude/skills/`. The REAL
// Claude Code CLI lists those skills to the project's scripted model server on
// 127.0.0.1; the scripted model loads a skill (the `Skill` tool) when its
// description matches the prompt and follows what the skill says (a file to
// open, a code pattern to search for). The numbers demonstrate the harness,
// not a model.
export default defineExperiment({
  name: 'skills-demo',
  description:
    'DEMONSTRATION with a scripted model: the real Claude Code CLI against the project\'s scripted model server, ' +
    'under the skill conditions. The numbers show the harness at work, not what any real model would do.',
  stage: 'demo',
  tasks: '.',
  agent: {
    kind: 'claude-code',
    // The CLI prices the scripted model's tokens with its own table for this model.
    model: 'claude-sonnet-4-5',
    options: { scriptedModel: true },
  },
  skills: {
    library: 'skills',
    // target_plus_one: the target skill plus this one.
    related: { 'csv-parsing': 'input-validation', 'date-handling': 'input-validation', 'config-loading': 'input-validation' },
    // target_plus_unrelated: the target skill plus this one (an interaction control).
    unrelated: { 'csv-parsing': 'config-loading', 'date-handling': 'bdi-mental-states', 'config-loading': 'bdi-mental-states' },
  },
  seeds: 3,
  budgetUsd: 1,
  timeoutSeconds: 120,
  oracleTimeoutSeconds: 60,
  retries: { attempts: 2, backoffSeconds: 1 },
  // Fail fast if anything is wrong with the local server: the CLI would otherwise retry for minutes.
  env: { set: { CLAUDE_CODE_MAX_RETRIES: '1' } },
  maxWorkers: 2,
  // The forecast `task-outcome validate` prints (priced by the CLI's own table; no money is spent).
  estimatedRunCostUsd: 0.15,
  maxBudgetUsd: 15,
})
