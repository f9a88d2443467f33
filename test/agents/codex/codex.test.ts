import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CodexAgent } from '../../../src/agents/codex/agent.ts'
import { planSession } from '../../../src/scripted-model/policy.ts'
import type { FaultRuleInput } from '../../../src/scripted-model/faults.ts'
import { openaiResponses } from '../../../src/scripted-model/openai-responses.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'
import { GREET_AFTER, GREET_TASK, processesOf, runRequest, taskWithSolution } from '../../helpers/scripted-session.ts'
import { failureOf } from '../../helpers/harness-failure.ts'
import { ScriptedSessionFixture } from '../../helpers/scripted-session-fixture.ts'
import { waitFor } from '../../helpers/wait-for.ts'

// The real Codex CLI (@openai/codex 0.171.0, its native binary) runs whole sessions against
// the project's scripted model server on 127.0.0.1 speaking the OpenAI Responses API. Codex's
// tools, sandbox, apply_patch and token accounting are real; only the model is scripted.

const KEY = 'SCRIPTED_MODEL_KEY'
// gpt-5.5 is in Codex's bundled model catalog (so it offers its apply_patch tool) and in the price table.
const MODEL = 'gpt-5.5'

const session = new ScriptedSessionFixture('codex-test', openaiResponses)
const start = (seed: number, faults: FaultRuleInput[] = [], latencyMs = 0) => session.start(seed, faults, latencyMs)

// These sessions run outside the harness's sandbox but as the harness runs Codex inside it: without a nested sandbox
// of Codex's own (`danger-full-access`), whose start depends on where Codex's package and home lie and on the host's
// bwrap (with Debian's 0.8.0 installed and the clone under /tmp, every command fails with `execvp codex-linux-sandbox`).
const UNNESTED = { sandbox: 'danger-full-access' } as const

function agent(url: string, options: Record<string, unknown> = {}): CodexAgent {
  return new CodexAgent(
    AgentSpecSchema.parse({
      kind: 'codex',
      model: MODEL,
      options: { baseUrl: `${url}/v1`, envKey: KEY, requestMaxRetries: 0, streamMaxRetries: 0, ...UNNESTED, ...options },
    }),
  )
}

describe('codex against the scripted model server', () => {
  it('parses a whole session into cost, tokens, turns and tool calls before the first edit', async () => {
    const seed = 3
    const scripted = await start(seed)
    const result = await agent(scripted.url).run(runRequest(session.folders, { seed, env: { [KEY]: 'test-key' } }))

    // What the policy planned for this seed (the prompt names no file, so it explores first).
    const plan = planSession(GREET_TASK, seed, { goldNamed: [], otherNamed: [] })
    const firstEdit = plan.findIndex((turn) => turn.action.kind === 'edit')
    expect(result.stop).toBe('completed')
    expect(result.turns).toBe(plan.length)
    expect(scripted.requests.filter((request) => request.route === 'model')).toHaveLength(plan.length)
    expect(result.toolCalls).toBe(plan.length - 1)
    expect(result.toolCallsBeforeFirstEdit).toBe(firstEdit)

    // Tokens are what the server billed: OpenAI has no cache-write charge, so cache writes are plain input.
    const billed = scripted.usage
    expect(result.tokens).toEqual({
      input: billed.inputTokens + billed.cacheWriteTokens,
      cacheRead: billed.cacheReadTokens,
      cacheWrite: 0,
      output: billed.outputTokens,
    })
    expect(result.tokens!.cacheRead).toBeGreaterThan(0)
    // gpt-5.5 list prices: $5 input, $0.50 cached input, $30 output per million tokens.
    const tokens = result.tokens!
    expect(result.costSource).toBe('priced')
    expect(result.costUsd).toBeCloseTo(tokens.input * 5e-6 + tokens.cacheRead * 0.5e-6 + tokens.output * 30e-6, 10)
    expect(result.model).toBe(MODEL)

    // The edit went through Codex's real apply_patch, and the transcript is what Codex printed.
    expect(await readFile(path.join(session.folders.workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
    const transcript = await readFile(session.folders.transcriptPath)
    expect(result.transcriptSha256).toBe(createHash('sha256').update(transcript).digest('hex'))
    expect(transcript.toString()).toMatch(/"type":"file_change"/)
    expect(result.hooksFired).toBeNull()
  })

  it("edits through the shell's apply_patch with a model outside Codex's catalog (which gets no apply_patch tool)", async () => {
    const seed = 3
    const scripted = await start(seed)
    const outside = new CodexAgent(
      AgentSpecSchema.parse({ kind: 'codex', model: 'gpt-5', options: { baseUrl: `${scripted.url}/v1`, envKey: KEY, requestMaxRetries: 0, streamMaxRetries: 0, ...UNNESTED } }),
    )
    const result = await outside.run(runRequest(session.folders, { seed, env: { [KEY]: 'test-key' } }))
    expect(result.stop).toBe('completed')
    expect(result.toolCallsBeforeFirstEdit).toBe(planSession(GREET_TASK, seed, { goldNamed: [], otherNamed: [] }).findIndex((turn) => turn.action.kind === 'edit'))
    expect(await readFile(path.join(session.folders.workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
  })

  it('reports its version with the price table version', async () => {
    const scripted = await start(1)
    expect(await agent(scripted.url).version({ PATH: process.env.PATH ?? '', HOME: session.folders.home })).toMatch(/^codex-cli 0\.171\.0; genai-prices \d+\.\d+\.\d+$/)
  })

  it('no credentials (the key variable is unset) is an auth failure that is not retried', async () => {
    const scripted = await start(1)
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders)))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(new RegExp(KEY))
    expect(scripted.requests).toHaveLength(0)
  })

  it('HTTP 401 is an auth failure that is not retried', async () => {
    const scripted = await start(1, [{ fault: { kind: 'status', status: 401 } }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders, { env: { [KEY]: 'wrong-key' } })))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
  })

  it.each([
    ['HTTP 529 overloaded', { kind: 'status', status: 529 } as const],
    ['HTTP 500', { kind: 'status', status: 500 } as const],
    ['a dropped connection', { kind: 'drop' } as const],
  ])('%s is an API failure, retried', async (_name, fault) => {
    const scripted = await start(1, [{ fault }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders, { env: { [KEY]: 'test-key' } })))
    expect(failure.reason).toBe('api-error')
    expect(failure.retryable).toBe(true)
  })

  it('a dropped connection mid-session is an API failure too', async () => {
    const scripted = await start(1, [{ fault: { kind: 'drop' }, from: 2, count: 1 }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders, { env: { [KEY]: 'test-key' } })))
    expect(failure.reason).toBe('api-error')
    expect(scripted.requests.filter((request) => request.route === 'model')).toHaveLength(3)
  })

  it('a stall past the timeout is a harness failure, and no process of the run is left alive', async () => {
    const scripted = await start(1, [{ fault: { kind: 'stall' } }])
    const started = Date.now()
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders, { timeoutMs: 3000, env: { [KEY]: 'test-key' } })))
    expect(failure.reason).toBe('api-error')
    expect(failure.message).toMatch(/before the timeout/)
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(processesOf(session.folders.root)).toEqual([])
  })
})

describe('codex at the harness timeout', () => {
  it('a session still working when the clock runs out stops as a timeout, and nothing of it is left alive', async () => {
    const server = await start(3, [], 2500)
    // Six answers 2.5 s apart cannot all come within 10 s; the first comes within it even when the CLI starts slowly on a loaded machine.
    const result = await agent(server.url).run(runRequest(session.folders, { timeoutMs: 10_000, env: { [KEY]: 'test-key' } }))
    expect(result.stop).toBe('timeout')
    expect(result.turns).toBeGreaterThan(0)
    expect(processesOf(session.folders.root)).toEqual([])
  })
})

describe('processesOf', () => {
  it('finds a live process working in the run folder (so the checks above can fail)', async () => {
    const { execa } = await import('execa')
    const child = execa('sleep', ['30'], { cwd: session.folders.workspace, reject: false })
    await waitFor(() => processesOf(session.folders.root).includes(child.pid!), 'the sleep to be found in the run folder').catch(() => {})
    expect(processesOf(session.folders.root)).toContain(child.pid)
    child.kill('SIGKILL')
    await child
  })
})

describe('codex with options.scriptedModel', () => {
  it('starts its own scripted model server, which learns the fix from the task, and the real CLI applies it', async () => {
    const scriptedAgent = new CodexAgent(AgentSpecSchema.parse({ kind: 'codex', model: MODEL, options: { scriptedModel: { wrongEditRate: 0 }, ...UNNESTED } }))
    expect(scriptedAgent.options.scriptedModel).toMatchObject({ wrongEditRate: 0, faults: [] })
    const result = await scriptedAgent.run(runRequest(session.folders, { task: await taskWithSolution(session.folders) }))
    expect(result.stop).toBe('completed')
    expect(result.costUsd).toBeGreaterThan(0)
    expect(result.turns).toBeGreaterThan(1)
    expect(await readFile(path.join(session.folders.workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
  })

  it('a session the model never billed (zero usage) is a $0 success: a harness failure', async () => {
    const zeroAgent = new CodexAgent(AgentSpecSchema.parse({ kind: 'codex', model: MODEL, options: { scriptedModel: { zeroUsage: true } } }))
    const failure = await failureOf(zeroAgent.run(runRequest(session.folders, { task: await taskWithSolution(session.folders) })))
    expect(failure.reason).toBe('zero-cost')
  })
})
