import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/agents/index.ts'
import { resolveExperiment } from '../../src/experiment/load.ts'
import { runTrial, type RunContext, type RunStage } from '../../src/runs/execute.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { NODE_TEST_COMMAND } from '../helpers/throwaway.ts'
import { harvestedTasks, type HarvestedFixture } from '../oracle/git-fix-task.ts'

// Judging mounts the oracle's overlay ahead of the oracle (while it reads and writes down the agent's change) and
// releases it beside the guard's last look. Real repository, sandbox, `command` agent and `node --test`: whatever
// the oracle does with that overlay, no holder process and no folder of it outlives the run.
const calc = (mul: string) => `export const add = (a, b) => a + b\nexport const mul = (a, b) => ${mul}\n`
const calcTest = (mulAssertion: string) =>
  `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add, mul } from '../src/calc.js'\n` +
  `test('adds', () => assert.equal(add(2, 3), 5))\ntest('multiplies', () => ${mulAssertion})\n`

let fixture: HarvestedFixture
let root: string

beforeAll(async () => {
  fixture = await harvestedTasks(
    [
      { subject: 'Initial calculator', files: { 'package.json': '{"type":"module"}\n', 'src/calc.js': calc('a + b'), 'test/calc.test.js': calcTest('assert.ok(true)') } },
      { subject: 'fix: multiplying adds instead', files: { 'src/calc.js': calc('a * b'), 'test/calc.test.js': calcTest('assert.equal(mul(2, 3), 6)') } },
    ],
    { testCommand: NODE_TEST_COMMAND, source: ['src/**/*.js'], tests: ['test/**/*.test.js'] },
  )
  root = await mkdtemp(path.join(os.tmpdir(), 'judging-copy-'))
  await writeFile(path.join(root, 'agent.sh'), `#!/bin/sh\ncat > src/calc.js <<'EOF'\n${calc('a * b')}EOF\necho '{"status":"completed","costUsd":0.01}'\n`)
  await chmod(path.join(root, 'agent.sh'), 0o755)
})

afterAll(async () => {
  await fixture.cleanup()
  await rm(root, { recursive: true, force: true })
})

/** The command lines of live processes that name `dir` (an overlay holder's names its mount point below it). */
async function processesNaming(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (commandLine.includes(dir)) found.push(commandLine.split('\0').join(' '))
  }
  return found
}

/** One sandboxed run of the fixing agent on `task`, in a workspace root of its own; its stages, and what it threw. */
async function oneRun(task: GitFixTask, name: string) {
  const experiment = resolveExperiment(
    {
      default: {
        name,
        stage: 'example',
        agent: { kind: 'command', bin: './agent.sh', options: { allowZeroCost: true } },
        arms: { baseline: {}, treatment: {} },
        control: 'baseline',
        budgetUsd: 0.5,
        timeoutSeconds: 60,
        oracleTimeoutSeconds: 60,
        retries: { attempts: 1, backoffSeconds: 0 },
        output: path.join(root, name, 'out'),
      },
    },
    { file: path.join(root, 'experiment.ts'), root },
  )
  const workspaceRoot = await mkdtemp(path.join(root, `${name}-workspaces-`))
  const stages: Partial<Record<RunStage, number>> = {}
  const context: RunContext = {
    experiment,
    task,
    arm: 'baseline',
    seed: 1,
    order: 0,
    specSha256: 'd'.repeat(64),
    agent: createAgent(experiment.spec.agent, { experimentDir: experiment.dir, root }),
    agentVersion: 'test',
    workspaceRoot,
    onStage: (stage, ms) => {
      stages[stage] = ms
    },
  }
  const outcome = await runTrial(context, path.join(root, name, 'artifacts')).then(
    (trial) => ({ trial, error: undefined }),
    (error: unknown) => ({ trial: undefined, error: error as Error }),
  )
  return { ...outcome, stages, workspaceRoot }
}

describe("judging's oracle overlay, mounted ahead of the oracle", () => {
  it('is the tree the oracle judges: a fixing agent is solved, the oracle prepared and ran, and nothing of the overlay outlives the run', async () => {
    const run = await oneRun(fixture.tasks[0]!, 'solved')
    expect(run.error).toBeUndefined()
    expect(run.trial!.judgement.solved).toBe(true)
    expect(run.trial!.judgement.stderr).toMatch(/took 1 changed non-test file\(s\) from the agent: src\/calc\.js/)
    expect(run.stages['oracle preparation']).toBeGreaterThan(0)
    expect(run.stages['test command']).toBeGreaterThan(0)
    expect(await processesNaming(run.workspaceRoot)).toEqual([])
    expect(await readdir(run.workspaceRoot)).toEqual([])
  })

  it('is released when the oracle fails with it (a test command that reports nothing, on the clean parent too): the run throws, no holder is left', async () => {
    const task = fixture.tasks[0]!
    const silent: GitFixTask = { ...task, metadata: { ...task.metadata, test_command: 'true {junit} {tests}' } }
    const run = await oneRun(silent, 'silent')
    expect(run.error?.message).toMatch(/produced no results .* not even on the clean parent/)
    expect(await processesNaming(run.workspaceRoot)).toEqual([])
    expect(await readdir(run.workspaceRoot)).toEqual([])
  })
})
