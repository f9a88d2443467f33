import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ClaudeCodeAgent } from '../../../src/agents/claude-code/agent.ts'
import type { ClaudeCodeOptionsInput } from '../../../src/agents/claude-code/options.ts'
import type { AgentRunRequest } from '../../../src/agents/types.ts'
import { HarnessFailure } from '../../../src/errors.ts'
import { claudeSpec, makeSandbox, type Sandbox } from './session-helpers.ts'

// Each way a real session can measure nothing, produced for real: the pinned
// Claude Code CLI against the scripted model server told to fail (or with no
// credentials at all). Each must end as a HarnessFailure with the right reason.
// CLAUDE_CODE_MAX_RETRIES is 0 or 1 so the CLI gives up in about a second.

let sandbox: Sandbox
beforeAll(async () => {
  sandbox = await makeSandbox()
})
afterAll(async () => {
  await sandbox.dispose()
})

async function failureOf(options: ClaudeCodeOptionsInput, overrides: Partial<AgentRunRequest> = {}, args: string[] = []): Promise<HarnessFailure> {
  const workspace = await sandbox.workspace()
  const agent = new ClaudeCodeAgent(claudeSpec({ options: options as Record<string, unknown>, args }), { experimentDir: sandbox.dir })
  const request = await sandbox.request(workspace)
  const error = await agent.run({ ...request, ...overrides, env: { ...request.env, ...overrides.env } }).then(
    (result) => new Error(`expected a harness failure, got a measurement: ${JSON.stringify(result)}`),
    (error: unknown) => error,
  )
  if (!(error instanceof HarnessFailure)) throw error
  return error
}

describe('harness failures of the real CLI', () => {
  test("no credentials: auth, not retryable, with the CLI's own message", async () => {
    // No scripted model and no key: the CLI stops before any network call.
    const failure = await failureOf({})
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toContain('Not logged in')
  })

  test('HTTP 401 from the API: auth, not retryable', async () => {
    const failure = await failureOf({ scriptedModel: { faults: [{ fault: { kind: 'status', status: 401 } }] } })
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toContain('Invalid API key')
  })

  test("HTTP 529 overloaded, after the CLI's own retry: api-error, retryable", async () => {
    const failure = await failureOf({ scriptedModel: { faults: [{ fault: { kind: 'status', status: 529 } }] } }, { env: { CLAUDE_CODE_MAX_RETRIES: '1' } })
    expect(failure.reason).toBe('api-error')
    expect(failure.retryable).toBe(true)
    expect(failure.message).toContain('api_error_status 529')
  })

  test('a dropped connection: api-error', async () => {
    const failure = await failureOf({ scriptedModel: { faults: [{ fault: { kind: 'drop' } }] } })
    expect(failure.reason).toBe('api-error')
  })

  test("a model that stalls past the CLI's request timeout: api-error", async () => {
    const failure = await failureOf({ scriptedModel: { faults: [{ fault: { kind: 'stall' } }] } }, { env: { API_TIMEOUT_MS: '1500' } })
    expect(failure.reason).toBe('api-error')
  })

  test('an API that fails after the session started working: api-error, not a measurement', async () => {
    // Two model calls succeed (the CLI's title request and the first turn), then every call fails.
    const failure = await failureOf({ scriptedModel: { faults: [{ fault: { kind: 'status', status: 500 }, from: 2 }] } })
    expect(failure.reason).toBe('api-error')
  })

  test('a "successful" session that cost $0: zero-cost', async () => {
    const failure = await failureOf({ scriptedModel: { zeroUsage: true } })
    expect(failure.reason).toBe('zero-cost')
  })

  test("a flag the CLI refuses: refused, not retryable, with the CLI's words", async () => {
    const failure = await failureOf({ scriptedModel: true }, {}, ['--no-such-flag'])
    expect(failure.reason).toBe('refused')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toContain('--no-such-flag')
  })

  test('an agent binary that does not exist: crash', async () => {
    const workspace = await sandbox.workspace()
    const agent = new ClaudeCodeAgent(claudeSpec({ bin: './no-such-claude' }), { experimentDir: sandbox.dir })
    const error = await agent.run(await sandbox.request(workspace)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HarnessFailure)
    expect((error as HarnessFailure).reason).toBe('crash')
  })
})
