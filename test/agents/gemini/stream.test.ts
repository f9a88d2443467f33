import { describe, expect, it } from 'vitest'
import { classifyGeminiSession, geminiFailureReason, type GeminiExit } from '../../../src/agents/gemini/classify.ts'
import { geminiStderrMessage, geminiStreamTokens, readGeminiStream } from '../../../src/agents/gemini/stream.ts'
import { capturedOutput } from '../../helpers/captured-output.ts'
import { failureOfCall as failureOf } from '../../helpers/harness-failure.ts'

// Parser fixtures: what the real `gemini` 0.61.0 printed, copied verbatim from
// ../shared/reference/agent-output/ into ./fixtures/.
const { fixture, lines } = capturedOutput(import.meta.dirname)
const exited = (exitCode: number | null, extra: Partial<GeminiExit> = {}): GeminiExit => ({ exitCode, timedOut: false, aborted: false, stderr: '', ...extra })

describe('a captured Gemini session (gemini-mock-session.jsonl)', () => {
  const stream = readGeminiStream(lines('gemini-mock-session.jsonl'))

  it('is a completed session', () => {
    expect(classifyGeminiSession(stream, exited(0, { stderr: fixture('gemini-mock-session.stderr.txt') }))).toEqual({ stop: 'completed' })
  })

  it('takes the cached tokens out of the input', () => {
    expect(stream.tokens).toEqual({ input: 2800, cacheRead: 1800, cacheWrite: 0, output: 200 })
    expect(stream.model).toBe('gemini-2.5-flash')
  })

  it('counts tool calls, and those before the first replace', () => {
    expect(stream.toolCalls).toBe(3)
    expect(stream.toolCallsBeforeFirstEdit).toBe(2)
  })

  it('matches its -o json twin (gemini-mock-session.json) on prompt, cache and candidates', () => {
    const twin = JSON.parse(fixture('gemini-mock-session.json')) as { stats: { models: Record<string, { tokens: Record<string, number> }> } }
    const tokens = twin.stats.models.mock!.tokens
    expect(stream.tokens!.input + stream.tokens!.cacheRead).toBe(tokens.prompt)
    expect(stream.tokens!.cacheRead).toBe(tokens.cached)
    // The twin reports 20 thinking tokens; this capture's server left them out of totalTokenCount
    // (total = prompt + candidates), so its stream cannot show them. The real API counts them in.
    expect(tokens.total).toBe(tokens.prompt! + tokens.candidates!)
    expect(stream.tokens!.output).toBe(tokens.candidates)
  })
})

describe('thinking tokens', () => {
  it('bill at the output rate: they are what total_tokens has beyond prompt and candidates', () => {
    expect(geminiStreamTokens({ input_tokens: 4600, cached: 1800, output_tokens: 200, total_tokens: 4820 })).toEqual({ input: 2800, cacheRead: 1800, cacheWrite: 0, output: 220 })
  })
})

describe('captured Gemini failures', () => {
  it('no credentials with stream-json (exit 41, a text message on stderr) is an auth failure, not retried', () => {
    const failure = failureOf(() => classifyGeminiSession(readGeminiStream([]), exited(41, { stderr: fixture('gemini-stream-json-nocreds.stderr.txt') })))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(/GEMINI_API_KEY/)
  })

  it('no credentials with -o json (exit 41, a JSON error on stderr) is an auth failure quoting the JSON message', () => {
    const stderr = fixture('gemini-json-nocreds.stderr.txt')
    expect(geminiStderrMessage(stderr)).toMatch(/^Please set an Auth method/)
    expect(failureOf(() => classifyGeminiSession(readGeminiStream([]), exited(41, { stderr }))).reason).toBe('auth')
  })

  it('an untrusted folder (exit 55) is refused, not retried, and says what to pass', () => {
    const failure = failureOf(() => classifyGeminiSession(readGeminiStream([]), exited(55, { stderr: fixture('gemini-stream-json-untrusted-rc55.stderr.txt') })))
    expect(failure.reason).toBe('refused')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(/--skip-trust/)
    expect(failure.message).not.toMatch(/\u001b\[/)
  })

  it('a fake key offline (gemini-stream-json-fakekey-offline.jsonl, exit 1 after its retries) is an API failure', () => {
    const failure = failureOf(() =>
      classifyGeminiSession(readGeminiStream(lines('gemini-stream-json-fakekey-offline.jsonl')), exited(1, { stderr: fixture('gemini-stream-json-fakekey-offline.stderr.txt') })),
    )
    expect(failure.reason).toBe('api-error')
    expect(failure.retryable).toBe(true)
    expect(failure.message).toMatch(/fetch failed/)
  })
})

describe('sessions built from the captured one', () => {
  const session = lines('gemini-mock-session.jsonl').filter((line) => line !== '')

  it('the turn limit (exit 53) is a max-turns stop, for the oracle to judge', () => {
    const limited = [
      ...session.slice(0, -1),
      JSON.stringify({ type: 'result', status: 'error', error: { type: 'FatalTurnLimitedError', message: 'Reached max session turns' }, stats: {} }),
    ]
    expect(classifyGeminiSession(readGeminiStream(limited), exited(53))).toEqual({ stop: 'max-turns' })
  })

  it('a timeout while the agent was working is a timeout stop', () => {
    expect(classifyGeminiSession(readGeminiStream(session.slice(0, 5)), exited(null, { timedOut: true }))).toEqual({ stop: 'timeout' })
  })

  it('a timeout before the model answered (a stalled request) is a harness failure', () => {
    const failure = failureOf(() => classifyGeminiSession(readGeminiStream(session.slice(0, 2)), exited(null, { timedOut: true })))
    expect(failure.reason).toBe('api-error')
    expect(failure.message).toMatch(/stalled/)
  })

  it('exit 0 without a result event is no result', () => {
    expect(failureOf(() => classifyGeminiSession(readGeminiStream(session.slice(0, -1)), exited(0))).reason).toBe('no-result')
  })

  it('a success that used no tokens is a $0 success: the model was never called', () => {
    const zero = [
      ...session.slice(0, -1),
      JSON.stringify({ type: 'result', status: 'success', stats: { total_tokens: 0, input_tokens: 0, output_tokens: 0, cached: 0, input: 0 } }),
    ]
    expect(failureOf(() => classifyGeminiSession(readGeminiStream(zero), exited(0))).reason).toBe('zero-cost')
  })

  it('a result with status error is a failure whatever the exit code', () => {
    const failed = [
      ...session.slice(0, -1),
      JSON.stringify({ type: 'result', status: 'error', error: { type: 'Error', message: '[API Error: 401 API key not valid]' }, stats: {} }),
    ]
    const failure = failureOf(() => classifyGeminiSession(readGeminiStream(failed), exited(0)))
    expect(failure.reason).toBe('auth')
  })
})

describe('failure messages', () => {
  it("a rate limit is retried even though the CLI's message suggests another /auth method", () => {
    const message =
      '[API Error: rate limited]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method'
    expect(geminiFailureReason(message)).toBe('api-error')
    expect(geminiFailureReason('[API Error: {"error":{"code":401,"message":"API key not valid","status":"UNAUTHENTICATED"}}]')).toBe('auth')
    expect(geminiFailureReason('[API Error: {"error":{"code":529,"message":"Overloaded","status":"UNAVAILABLE"}}]')).toBe('api-error')
  })
})
