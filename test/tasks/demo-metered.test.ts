import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createAgent } from '../../src/agents/index.ts'
import { SCRIPTED_COUNT_FILE, type ScriptedCount } from '../../src/agents/scripted-run.ts'
import { loadExperiment, type LoadedExperiment } from '../../src/experiment/load.ts'
import { artifactsPath, armAgentSpec, executeRun } from '../../src/runs/execute.ts'
import { loadTask } from '../../src/tasks/load.ts'

// The demo's own experiment (tasks/demo/experiment.ts: the real Claude Code CLI, each run with its own scripted
// model server behind the metering gateway, in the harness's sandbox), on one task and one seed per arm rather than
// the whole demo: every run's `metered` is the scripted server's own count of what it answered and billed, which
// the server writes beside the transcript when the run ends. The treatment's hook changes what the model is shown,
// so the two arms' counts differ, and both are matched.

const repoRoot = path.resolve(import.meta.dirname, '../..')
let experiment: LoadedExperiment
let outDir: string

beforeAll(async () => {
  outDir = await mkdtemp(path.join(os.tmpdir(), 'demo-metered-'))
  const demo = await loadExperiment({ file: 'tasks/demo/experiment.ts', root: repoRoot })
  experiment = { ...demo, outDir }
})
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true })
})

describe("the demo's runs are metered at the scripted server's own count", () => {
  test.each(['baseline', 'context'])('%s: metered requests and tokens are what the server answered and billed', async (arm) => {
    const task = await loadTask(path.join(experiment.tasksDir, '001-quoted-descriptions-containing-commas'), experiment.root)
    const agent = createAgent(armAgentSpec(experiment, arm), { experimentDir: experiment.dir, root: experiment.root })
    const record = await executeRun({
      experiment,
      task,
      arm,
      seed: 1,
      order: 0,
      specSha256: 'd'.repeat(64),
      agent,
      agentVersion: await agent.version({ PATH: process.env.PATH ?? '' }),
    })
    const count = JSON.parse(await readFile(path.join(outDir, artifactsPath({ task: task.id, arm, seed: 1 }), SCRIPTED_COUNT_FILE), 'utf8')) as ScriptedCount
    expect(count.modelRequests).toBeGreaterThan(1)
    expect(record.metered).toEqual({ requests: count.modelRequests, tokens: count.tokens, costUsd: expect.any(Number), models: ['claude-sonnet-4-5'] })
    // The CLI's own report agrees here (no add-on forges anything in the demo): the same tokens, the same cost to a nano-dollar.
    expect(record.tokens).toEqual(count.tokens)
    expect(record.metered!.costUsd).toBeCloseTo(record.costUsd, 9)
    // The context arm's hooks: the harness's count of their starts is the CLI's count of its hook_response lines.
    expect(record.manipulation === null).toBe(arm === 'baseline')
    expect(record.manipulation?.hookStarts).toEqual(record.manipulation?.hooksReported)
    expect(record.integrityFlags).toEqual([])
  })
})
