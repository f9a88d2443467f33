import { describe, expect, it } from 'vitest'
import { classifyCodexSession, codexFailureReason, type CodexExit } from '../../../src/agents/codex/classify.ts'
import { readCodexStream } from '../../../src/agents/codex/stream.ts'
import { capturedOutput } from '../../helpers/captured-output.ts'
import { failureOfCall as failureOf } from '../../helpers/harness-failure.ts'

// Parser fixtures: what the real `codex exec --json` 0.171.0 printed, copied verbatim from
// ../shared/reference/agent-output/ into ./fixtures/.
const { fixture, lines } = capturedOutput(import.meta.dirname)
const exited = (exitCode: number | null, extra: Partial<CodexExit> = {}): CodexExit => ({ exitCode, timedOut: false, aborted: false, stderr: '', ...extra })

describe('a captured Codex session (codex-mock-session.jsonl)', () => {
  const stream = readCodexStream(lines('codex-mock-session.jsonl'))

  it('is a completed session', () => {
    expect(classifyCodexSession(stream, exited(0))).toEqual({ stop: 'completed' })
  })

  it('takes cached input tokens out of the input (they are part of input_tokens)', () => {
    expect(stream.usage).toEqual({ input: 3300 - 1600, cacheRead: 1600, cacheWrite: 0, output: 150 })
  })

  it('counts tool items, and those before the first file_change', () => {
    expect(stream.toolCalls).toBe(2)
    expect(stream.toolCallsBeforeFirstEdit).toBe(1)
    expect(stream.finalMessage).toBe('Done: updated hello.py.')
    expect(stream.threadId).toBe('01a22dc6-348e-7b60-8c0f-d85ae8ef5e15')
  })
})

describe('captured Codex failures', () => {
  it('HTTP 401 (codex-exec-json-401.jsonl, exit 1) is an auth failure, not retried', () => {
    const failure = failureOf(() => classifyCodexSession(readCodexStream(lines('codex-exec-json-401.jsonl')), exited(1)))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(/401 Unauthorized/)
  })

  it('a missing key variable (codex-exec-json-missing-env-key.jsonl, exit 1) is an auth failure', () => {
    const failure = failureOf(() => classifyCodexSession(readCodexStream(lines('codex-exec-json-missing-env-key.jsonl')), exited(1)))
    expect(failure.reason).toBe('auth')
    expect(failure.message).toMatch(/MOCK_OPENAI_KEY/)
  })

  it('no credentials offline (codex-exec-json-nocreds.jsonl): reconnecting until the timeout is an API failure, retried', () => {
    expect(fixture('codex-exec-json-nocreds.rc.txt').trim()).toBe('rc=124')
    const failure = failureOf(() => classifyCodexSession(readCodexStream(lines('codex-exec-json-nocreds.jsonl')), exited(null, { timedOut: true })))
    expect(failure.reason).toBe('api-error')
    expect(failure.retryable).toBe(true)
    expect(failure.message).toMatch(/no answer from the model API before the timeout; last error: Reconnecting/)
  })

  it('connection refused (codex-exec-json-connrefused.jsonl), killed by the timeout, is an API failure', () => {
    const failure = failureOf(() => classifyCodexSession(readCodexStream(lines('codex-exec-json-connrefused.jsonl')), exited(null, { timedOut: true })))
    expect(failure.reason).toBe('api-error')
  })
})

describe('sessions built from the captured one', () => {
  const session = lines('codex-mock-session.jsonl').filter((line) => line !== '')

  it('a timeout while the agent was working is a timeout stop, for the oracle to judge', () => {
    const working = readCodexStream(session.slice(0, 5))
    expect(classifyCodexSession(working, exited(null, { timedOut: true }))).toEqual({ stop: 'timeout' })
  })

  it('a timeout before the model answered (a stalled request) is a harness failure', () => {
    const stalled = readCodexStream(session.slice(0, 2))
    const failure = failureOf(() => classifyCodexSession(stalled, exited(null, { timedOut: true })))
    expect(failure.reason).toBe('api-error')
    expect(failure.message).toMatch(/stalled/)
  })

  it('exit 0 without turn.completed is no result', () => {
    expect(failureOf(() => classifyCodexSession(readCodexStream(session.slice(0, 6)), exited(0))).reason).toBe('no-result')
  })

  it('a non-zero exit without an error event is a crash that quotes stderr', () => {
    const failure = failureOf(() => classifyCodexSession(readCodexStream(session.slice(0, 3)), exited(101, { stderr: 'thread main panicked' })))
    expect(failure.reason).toBe('crash')
    expect(failure.message).toMatch(/exited 101.*panicked/)
  })

  it('a completed turn that used no tokens is a $0 success: the model was never called', () => {
    const zero = [...session.slice(0, -1), JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 } })]
    expect(failureOf(() => classifyCodexSession(readCodexStream(zero), exited(0))).reason).toBe('zero-cost')
  })

  it('an aborted run is not retried', () => {
    const failure = failureOf(() => classifyCodexSession(readCodexStream(session), exited(null, { aborted: true })))
    expect(failure.retryable).toBe(false)
  })

  it('lines that are not JSON are counted, not fatal', () => {
    const stream = readCodexStream(['WARNING: something', ...session])
    expect(stream.unparsedLines).toBe(1)
    expect(stream.turnCompleted).toBe(true)
  })
})

describe('failure messages', () => {
  it('are auth only when no retryable cause is named', () => {
    expect(codexFailureReason('unexpected status 401 Unauthorized: Incorrect API key provided')).toBe('auth')
    expect(codexFailureReason('Missing environment variable: `OPENAI_API_KEY`.')).toBe('auth')
    expect(codexFailureReason('unexpected status 429 Too Many Requests: rate limited, check your API key quota')).toBe('api-error')
    expect(codexFailureReason('We’re currently experiencing high demand, which may cause temporary errors.')).toBe('api-error')
  })
})
