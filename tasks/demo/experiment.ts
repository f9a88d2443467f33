import { defineExperiment } from '../../src/index.ts'

// The embedded default: `npx vitest run --project demo` needs no account and
// no network. The REAL Claude Code CLI (the pinned npm dependency) runs each
// task against the project's scripted model server on 127.0.0.1: the CLI, its
// tools, its hooks and its own cost accounting are real; the model's choices
// are scripted (explore, read, edit, finish), seeded per run, and depend on
// what the model is shown. The `context` arm installs a tiny context tool
// (context-tool/likely-files.mjs) as Claude Code hooks: it names the files the
// prompt's words point to, so the scripted model explores less when the tool
// is right and reads the wrong files when it is not. The numbers demonstrate
// the harness, not a model.
export default defineExperiment({
  name: 'demo',
  description:
    'DEMONSTRATION with a scripted model: the real Claude Code CLI against the project\'s scripted model server, ' +
    'with and without a context hook that names likely files. The numbers show the harness at work, not what any real model would do.',
  stage: 'demo',
  tasks: '.',
  agent: {
    kind: 'claude-code',
    // The CLI prices the scripted model's tokens with its own table for this model.
    model: 'claude-sonnet-4-5',
    options: { scriptedModel: true },
  },
  arms: {
    baseline: { description: 'Claude Code as installed' },
    context: {
      description: 'a UserPromptSubmit hook (likely-files) names the files most likely relevant to the prompt',
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
  seeds: 3,
  budgetUsd: 1,
  timeoutSeconds: 120,
  oracleTimeoutSeconds: 120,
  retries: { attempts: 2, backoffSeconds: 1 },
  // Fail fast if anything is wrong with the local server: the CLI would otherwise retry for minutes.
  env: { set: { CLAUDE_CODE_MAX_RETRIES: '1' } },
  maxWorkers: 2,
})
