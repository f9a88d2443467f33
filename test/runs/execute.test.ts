import { mkdtemp, readdir, readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import type { Agent, AgentRunRequest, AgentRunResult } from '../../src/agents/types.ts'
import { HarnessFailure } from '../../src/errors.ts'
import { resolveExperiment } from '../../src/experiment/load.ts'
import { executeRun } from '../../src/runs/execute.ts'
import { VersionMismatch } from '../../src/runs/versions.ts'
import { MeasuredRunSchema } from '../../src/runs/record.ts'
import { loadTask } from '../../src/tasks/load.ts'
import { writeFolderTasks } from '../helpers/experiment-fixture.ts'

// The executor's retry and record rules are tested with a scripted stand-in
// agent (the real CLIs cannot be made to fail on cue in a unit test); the
// workspace, the arm setup and the verify.sh oracle are the real ones.

type Step = (request: AgentRunRequest) => Promise<Partial<AgentRunResult>>

class ScriptedAgent implements Agent {
  readonly kind = 'scripted'
  calls = 0
  constructor(private readonly steps: Step[]) {}
  async version() {
    return 'scripted 1.0'
  }
  async run(request: AgentRunRequest): Promise<AgentRunResult> {
    const step = this.steps[Math.min(this.calls++, this.steps.length - 1)]!
    return {
      stop: 'completed',
      costUsd: 0.02,
      costSource: 'agent',
      tokens: null,
      turns: 2,
      toolCalls: 3,
      toolCallsBeforeFirstEdit: 1,
      wallMs: 5,
      model: 'scripted-model',
      transcriptSha256: null,
      hooksFired: null,
      ...(await step(request)),
    }
  }
}

const fix: Step = async (request) => {
  const { writeFile } = await import('node:fs/promises')
  await writeFile(path.join(request.workspaceOnHost ?? request.workspace, 'value.txt'), 'right\n')
  return {}
}
const fail =
  (reason: 'api-error' | 'auth', retryable = true): Step =>
  async () => {
    throw new HarnessFailure(reason, `scripted ${reason}`, { retryable })
  }

async function setup(arms: Record<string, unknown> = { a: {}, b: {} }, attempts = 3) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-exec-'))
  await writeFolderTasks(root, [{ id: '001-t', starting: { 'value.txt': 'wrong\n' }, verify: 'grep -qx right value.txt', solve: 'echo right > value.txt' }])
  const experiment = resolveExperiment(
    { default: { name: 'e', agent: { kind: 'noop' }, arms, control: 'a', budgetUsd: 0.4, retries: { attempts, backoffSeconds: 1 }, output: path.join(root, 'out') } },
    { file: path.join(root, 'experiment.ts'), root },
  )
  const task = await loadTask(path.join(root, '001-t'), root)
  const sleeps: number[] = []
  const context = (agent: Agent, arm = 'a') => ({
    experiment,
    task,
    arm,
    seed: 1,
    order: 0,
    specSha256: 'c'.repeat(64),
    agent,
    agentVersion: 'scripted 1.0',
    sleep: async (ms: number) => void sleeps.push(ms),
  })
  return { experiment, context, sleeps }
}

describe('making one run', () => {
  test("a solved run becomes a schema-valid record with the agent's numbers and the oracle's verdict", async () => {
    const { context } = await setup()
    const record = await executeRun(context(new ScriptedAgent([fix])))
    expect(MeasuredRunSchema.parse(record)).toEqual(record)
    expect(record).toMatchObject({ outcome: 'solved', solved: true, costUsd: 0.02, turns: 2, changedFiles: ['value.txt'], oracle: { verifyExit: 0 }, harnessRetries: [] })
    expect(record.versions).toMatchObject({ agent: 'scripted 1.0', model: 'scripted-model', node: process.version })
  })

  test('an unsolved run is recorded as it is and never retried', async () => {
    const { context } = await setup()
    const agent = new ScriptedAgent([async () => ({})])
    const record = await executeRun(context(agent))
    expect(record.outcome).toBe('unsolved')
    expect(record.oracle).toEqual({ verifyExit: 1 })
    expect(agent.calls).toBe(1)
  })

  test('harness failures are retried with doubling backoff, each reason kept in the record', async () => {
    const { context, sleeps } = await setup()
    const agent = new ScriptedAgent([fail('api-error'), fail('api-error'), fix])
    const record = await executeRun(context(agent))
    expect(record.solved).toBe(true)
    expect(record.harnessRetries).toEqual([
      { attempt: 1, reason: 'api-error', message: 'scripted api-error' },
      { attempt: 2, reason: 'api-error', message: 'scripted api-error' },
    ])
    expect(sleeps).toEqual([1000, 2000])
  })

  test('when every attempt fails, the run throws a harness failure naming each attempt', async () => {
    const { context, experiment } = await setup()
    const error = await executeRun(context(new ScriptedAgent([fail('api-error')]))).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(HarnessFailure)
    expect((error as Error).message).toMatch(/no measurement after 3 attempt\(s\); nothing recorded\.\nattempt 1: api-error/)
    const reason = await readFile(path.join(experiment.outDir, 'artifacts/001-t/a/seed-1/failed-attempt-3/reason.txt'), 'utf8')
    expect(reason).toContain('api-error')
  })

  test('a failure retrying cannot help (no credentials) stops at once', async () => {
    const { context, sleeps } = await setup()
    const agent = new ScriptedAgent([fail('auth', false)])
    await expect(executeRun(context(agent))).rejects.toThrow(/after 1 attempt/)
    expect(agent.calls).toBe(1)
    expect(sleeps).toEqual([])
  })

  test('a timeout is recorded as unsolved at the budget cap, whatever the workspace holds', async () => {
    const { context } = await setup()
    const record = await executeRun(context(new ScriptedAgent([async (request) => ({ ...(await fix(request)), stop: 'timeout', costUsd: 0.01 })])))
    expect(record).toMatchObject({ outcome: 'timeout', solved: false, costUsd: 0.4, costSource: 'budget-cap' })
  })

  test('manipulation check: a treatment run whose hooks never fired is a harness failure', async () => {
    const { context } = await setup({ a: {}, b: { hooks: ['UserPromptSubmit'] } }, 1)
    await expect(executeRun(context(new ScriptedAgent([async () => ({ hooksFired: { SessionStart: 1 } })]), 'b'))).rejects.toThrow(/none of its hooks/)
    const record = await executeRun(context(new ScriptedAgent([async () => ({ hooksFired: { UserPromptSubmit: 1, PostToolUse: 2 } })]), 'b'))
    expect(record.manipulation).toEqual({ hookPromptsRecorded: 1, hookEditsRecorded: 2, hooksReported: { UserPromptSubmit: 1, PostToolUse: 2 } })
  })

  test("manipulation check: where the harness counted the hooks' starts, its count decides, and a disagreement is flagged", async () => {
    const { context } = await setup({ a: {}, b: { hooks: ['UserPromptSubmit'] } }, 1)
    const forged = { hooksFired: { UserPromptSubmit: 3 }, hookStarts: { byEvent: { UserPromptSubmit: 0 }, foreign: [] } }
    await expect(executeRun(context(new ScriptedAgent([async () => forged]), 'b'))).rejects.toThrow(/none of its hooks/)
    const counted = { hooksFired: { UserPromptSubmit: 2 }, hookStarts: { byEvent: { UserPromptSubmit: 1 }, foreign: [] } }
    const record = await executeRun(context(new ScriptedAgent([async () => counted]), 'b'))
    expect(record.manipulation).toMatchObject({ hooksReported: { UserPromptSubmit: 2 }, hookStarts: { UserPromptSubmit: 1 } })
    expect(record.integrityFlags).toEqual([expect.stringMatching(/^hook-count-disagrees: UserPromptSubmit: the CLI printed 2, the harness counted 1 /)])
  })

  test('a session whose own report was forged (tampered) is not recorded, but kept in unrecorded/: its change, its transcript, what the gateway metered', async () => {
    const { context, experiment } = await setup()
    const metered = { requests: 4, tokens: { input: 900, output: 80, cacheRead: 0, cacheWrite: 0 }, costUsd: 0.0123, models: ['m'] }
    const forged: Step = async (request) => {
      const { writeFile } = await import('node:fs/promises')
      await fix(request)
      await writeFile(request.transcriptPath, '{"type":"result","total_cost_usd":0.000123}\n')
      throw new HarnessFailure('tampered', 'two result events', { retryable: false, measured: { metered } })
    }
    const agent = new ScriptedAgent([forged])
    const error = await executeRun(context(agent)).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(HarnessFailure)
    expect((error as HarnessFailure).reason).toBe('tampered')
    expect((error as Error).message).toMatch(/two result events What the session left is kept in .*unrecorded\/001-t\.a\.seed-1\.\d+\.json/)
    expect(agent.calls).toBe(1)
    const dir = path.join(experiment.outDir, 'unrecorded')
    const [file, ...others] = (await readdir(dir)).filter((name) => name.endsWith('.json'))
    expect(others).toEqual([])
    const kept = JSON.parse(await readFile(path.join(dir, file!), 'utf8')) as Record<string, unknown>
    expect(kept).toMatchObject({ experiment: 'e', task: '001-t', arm: 'a', seed: 1, outcome: 'tampered', reason: 'tampered', metered, artifacts: file!.replace(/\.json$/, '') })
    expect(await readFile(path.join(dir, kept.artifacts as string, 'diff.patch'), 'utf8')).toMatch(/^\+right$/m)
    expect(await readFile(path.join(dir, kept.artifacts as string, 'transcript.jsonl'), 'utf8')).toContain('0.000123')
    // A later start of the same run clears its artifacts folder, never what was kept.
    await executeRun(context(new ScriptedAgent([fix])))
    expect(await readFile(path.join(dir, kept.artifacts as string, 'diff.patch'), 'utf8')).toMatch(/^\+right$/m)
  })

  test("arm setup files and environment reach the agent, and setup files are not counted as the agent's changes", async () => {
    const { context } = await setup({ a: {}, b: { setup: { env: { HINT: 'value.txt' }, commands: ['echo context > CONTEXT.md'] } } })
    let seen: { env: string | undefined; context: string } | undefined
    const record = await executeRun(
      context(
        new ScriptedAgent([
          async (request) => {
            seen = { env: request.env.HINT, context: await readFile(path.join(request.workspaceOnHost ?? request.workspace, 'CONTEXT.md'), 'utf8') }
            return fix(request)
          },
        ]),
        'b',
      ),
    )
    expect(seen).toEqual({ env: 'value.txt', context: 'context\n' })
    expect(record.changedFiles).toEqual(['value.txt'])
  })
})

describe("versions and the run's scope", () => {
  test('a run whose versions differ from the recorded ones stops before the agent starts, naming both values', async () => {
    const { context } = await setup()
    const agent = new ScriptedAgent([fix])
    const error = await executeRun({ ...context(agent), recordedVersions: { agent: 'scripted 0.9', node: process.version } }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(VersionMismatch)
    expect((error as Error).message).toContain('001-t › a › seed 1: ')
    expect((error as Error).message).toContain('holds runs made with other versions (agent scripted 0.9 → scripted 1.0)')
    expect(agent.calls).toBe(0)
  })

  test('the model, known only after the session, is checked then: a run with another model is not recorded', async () => {
    const { context } = await setup()
    const agent = new ScriptedAgent([fix])
    const error = await executeRun({ ...context(agent), recordedVersions: { model: 'other-model' } }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(VersionMismatch)
    expect((error as Error).message).toContain('(model other-model → scripted-model)')
    expect((error as Error).message).toContain('this run is not recorded')
    expect(agent.calls).toBe(1)
  })

  test('the same recorded versions let the run through', async () => {
    const { context } = await setup()
    const first = await executeRun(context(new ScriptedAgent([fix])))
    const again = await executeRun({ ...context(new ScriptedAgent([fix])), recordedVersions: first.versions })
    expect(again.versions).toEqual(first.versions)
  })

  test("the run's scope is disposed whatever happened: no scratch folder or workspace is left, after a run or a failed attempt", async () => {
    const { context } = await setup({ a: {}, b: {} }, 1)
    const workspaceRoot = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-scope-'))
    await executeRun({ ...context(new ScriptedAgent([fix])), workspaceRoot })
    expect(await readdir(workspaceRoot)).toEqual([])
    await executeRun({ ...context(new ScriptedAgent([fail('api-error')])), workspaceRoot }).catch(() => undefined)
    expect(await readdir(workspaceRoot)).toEqual([])
    await executeRun({ ...context(new ScriptedAgent([fix])), workspaceRoot, recordedVersions: { agent: 'scripted 0.9' } }).catch(() => undefined)
    expect(await readdir(workspaceRoot)).toEqual([])
  })
})
