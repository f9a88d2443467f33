import { defineExperiment } from '../../src/index.ts'

// The machinery in seconds, with no model: the reference solution (`gold`)
// against an agent that changes nothing (`noop`). `gold` solves every task and
// `noop` none, so the report shows the whole pipeline on known answers.
export default defineExperiment({
  name: 'examples',
  description: 'gold against noop on three small folder tasks',
  stage: 'example',
  tasks: '.',
  agent: { kind: 'noop' },
  arms: {
    noop: { description: 'changes nothing' },
    gold: { description: 'applies the reference solution', agent: { kind: 'gold' } },
  },
  control: 'noop',
  seeds: 2,
  budgetUsd: 0.01,
  timeoutSeconds: 30,
  oracleTimeoutSeconds: 30,
  retries: { attempts: 2, backoffSeconds: 0 },
  maxWorkers: 2,
})
