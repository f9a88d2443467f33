import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { GeminiAgent } from '../../../src/agents/gemini/agent.ts'
import type { FaultRuleInput } from '../../../src/scripted-model/faults.ts'
import { geminiApi } from '../../../src/scripted-model/gemini.ts'
import { planSession } from '../../../src/scripted-model/policy.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'
import { GREET_AFTER, GREET_TASK, processesOf, runRequest, taskWithSolution } from '../../helpers/scripted-session.ts'
import { failureOf } from '../../helpers/harness-failure.ts'
import { ScriptedSessionFixture } from '../../helpers/scripted-session-fixture.ts'

// The real Gemini CLI (@google/gemini-cli 0.61.0) runs whole sessions against the project's
// scripted model server on 127.0.0.1 speaking the Gemini API (GOOGLE_GEMINI_BASE_URL). The
// CLI's tools, its trust and auth checks and its token accounting are real; only the model is
// scripted. The CLI takes about 3 s to start, so each test costs a few seconds.

const MODEL = 'gemini-2.5-flash'

const session = new ScriptedSessionFixture('gemini-test', geminiApi)
const start = (seed: number, faults: FaultRuleInput[] = [], latencyMs = 0) => session.start(seed, faults, latencyMs)

function agent(url: string, spec: Record<string, unknown> = {}): GeminiAgent {
  return new GeminiAgent(AgentSpecSchema.parse({ kind: 'gemini', model: MODEL, options: { baseUrl: url, maxAttempts: 1 }, ...spec }))
}

const withKey = { GEMINI_API_KEY: 'test-key' }

describe('gemini against the scripted model server', () => {
  it('parses a whole session into cost, tokens (thinking included), turns and tool calls before the first edit', async () => {
    const seed = 3
    const scripted = await start(seed)
    const result = await agent(scripted.url).run(runRequest(session.folders, { seed, env: withKey }))

    const plan = planSession(GREET_TASK, seed, { goldNamed: [], otherNamed: [] })
    expect(result.stop).toBe('completed')
    expect(result.turns).toBe(plan.length)
    expect(scripted.requests.filter((request) => request.route === 'model')).toHaveLength(plan.length)
    expect(result.toolCalls).toBe(plan.length - 1)
    expect(result.toolCallsBeforeFirstEdit).toBe(plan.findIndex((turn) => turn.action.kind === 'edit'))

    // The server billed thinking tokens inside its output; the CLI's stream leaves them out of
    // output_tokens, and the adapter puts them back.
    const billed = scripted.usage
    expect(result.tokens).toEqual({ input: billed.inputTokens + billed.cacheWriteTokens, cacheRead: billed.cacheReadTokens, cacheWrite: 0, output: billed.outputTokens })
    const tokens = result.tokens!
    expect(tokens.cacheRead).toBeGreaterThan(0)
    // gemini-2.5-flash list prices: $0.30 input, $0.03 cached input, $2.50 output per million tokens.
    expect(result.costSource).toBe('priced')
    expect(result.costUsd).toBeCloseTo(tokens.input * 0.3e-6 + tokens.cacheRead * 0.03e-6 + tokens.output * 2.5e-6, 10)
    expect(result.model).toBe(MODEL)

    expect(await readFile(path.join(session.folders.workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
    const transcript = await readFile(session.folders.transcriptPath)
    expect(result.transcriptSha256).toBe(createHash('sha256').update(transcript).digest('hex'))
    expect(transcript.toString()).toMatch(/"tool_name":"replace"/)
  })

  it('reports its version with the price table version', async () => {
    const scripted = await start(1)
    expect(await agent(scripted.url).version({ PATH: process.env.PATH ?? '', HOME: session.folders.home })).toMatch(/^gemini-cli 0\.61\.0; genai-prices \d+\.\d+\.\d+$/)
  })

  it('no credentials (exit 41) is an auth failure that is not retried', async () => {
    const scripted = await start(1)
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders)))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(/GEMINI_API_KEY/)
    expect(scripted.requests).toHaveLength(0)
  })

  it('HTTP 401 is an auth failure that is not retried', async () => {
    const scripted = await start(1, [{ fault: { kind: 'status', status: 401, message: 'API key not valid. Please pass a valid API key.' } }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders, { env: withKey })))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
  })

  it.each([
    ['HTTP 529 overloaded', { kind: 'status', status: 529 } as const],
    ['HTTP 429 rate limited', { kind: 'status', status: 429 } as const],
    ['a dropped connection', { kind: 'drop' } as const],
  ])('%s is an API failure, retried', async (_name, fault) => {
    const scripted = await start(1, [{ fault }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders, { env: withKey })))
    expect(failure.reason).toBe('api-error')
    expect(failure.retryable).toBe(true)
  })

  it('a stall past the timeout is a harness failure, and no process of the run is left alive', async () => {
    const scripted = await start(1, [{ fault: { kind: 'stall' } }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(session.folders, { timeoutMs: 5000, env: withKey })))
    expect(failure.reason).toBe('api-error')
    expect(failure.message).toMatch(/before the timeout/)
    expect(processesOf(session.folders.root)).toEqual([])
  })

  it("the session's own turn limit stops it as max-turns, for the oracle to judge", async () => {
    const scripted = await start(3)
    const result = await agent(scripted.url, { maxTurns: 2 }).run(runRequest(session.folders, { env: withKey }))
    expect(result.stop).toBe('max-turns')
  })
})

describe('gemini with options.scriptedModel', () => {
  it('starts its own scripted model server, which learns the fix from the task, and the real CLI applies it', async () => {
    const scriptedAgent = new GeminiAgent(AgentSpecSchema.parse({ kind: 'gemini', model: MODEL, options: { scriptedModel: { wrongEditRate: 0 } } }))
    const result = await scriptedAgent.run(runRequest(session.folders, { task: await taskWithSolution(session.folders) }))
    expect(result.stop).toBe('completed')
    expect(result.costUsd).toBeGreaterThan(0)
    expect(result.turns).toBeGreaterThan(1)
    expect(await readFile(path.join(session.folders.workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
  })

  it('a session the model never billed (zero usage) is a $0 success: a harness failure', async () => {
    const zeroAgent = new GeminiAgent(AgentSpecSchema.parse({ kind: 'gemini', model: MODEL, options: { scriptedModel: { zeroUsage: true } } }))
    const failure = await failureOf(zeroAgent.run(runRequest(session.folders, { task: await taskWithSolution(session.folders) })))
    expect(failure.reason).toBe('zero-cost')
  })
})
