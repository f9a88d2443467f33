import { InteractionUpdateSchema } from '@cursor/sdk'
import { describe, expect, it } from 'vitest'
import { classifyCursorSession, nodeTooOld, type CursorExit } from '../../../src/agents/cursor/classify.ts'
import { readCursorStream } from '../../../src/agents/cursor/stream.ts'
import { capturedOutput } from '../../helpers/captured-output.ts'
import { failureOfCall as failureOf } from '../../helpers/harness-failure.ts'

// Parser fixtures. cursor-sdk-nokey.jsonl and cursor-sdk-fakekey.jsonl are what the real
// @cursor/sdk 1.0.32 did, copied verbatim from ../shared/reference/agent-output/.
// synthetic-cursor-session.jsonl is NOT a capture: no successful Cursor session can run here
// (see cursor.test.ts for why), so it was written by hand in the runner's format, and every
// update in it is checked below against the SDK's own schema (InteractionUpdateSchema).
const { lines } = capturedOutput(import.meta.dirname)
const exited = (exitCode: number | null, extra: Partial<CursorExit> = {}): CursorExit => ({
  exitCode,
  signal: null,
  timedOut: false,
  aborted: false,
  stderr: '',
  nodeVersion: '22.23.5',
  ...extra,
})

describe('captured Cursor SDK failures', () => {
  it('cursor-sdk-nokey.jsonl: the unhandled rejection is read as the failure, though wait() only said "error"', () => {
    const stream = readCursorStream(lines('cursor-sdk-nokey.jsonl'))
    expect(stream.status).toBe('error')
    const failure = failureOf(() => classifyCursorSession(stream, exited(0)))
    // Offline, the SDK failed to reach its key exchange endpoint: a network failure, retried.
    // (Without a key the adapter never starts the SDK: it fails fast as `auth`, see cursor.test.ts.)
    expect(failure.reason).toBe('api-error')
    expect(failure.message).toMatch(/ConnectError: \[unknown\] Failed to connect to API key exchange endpoint/)
  })

  it('cursor-sdk-fakekey.jsonl: a NetworkError is an API failure, retried', () => {
    const failure = failureOf(() => classifyCursorSession(readCursorStream(lines('cursor-sdk-fakekey.jsonl')), exited(0)))
    expect(failure.reason).toBe('api-error')
    expect(failure.retryable).toBe(true)
  })
})

describe('a synthetic successful session (hand-written, checked against the SDK schema)', () => {
  const events = lines('synthetic-cursor-session.jsonl')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { tag: string; obj: unknown })

  it('holds only updates the real SDK schema accepts', () => {
    const deltas = events.filter((event) => event.tag === 'delta')
    expect(deltas.length).toBeGreaterThan(10)
    for (const delta of deltas) expect(InteractionUpdateSchema.safeParse(delta.obj).success, JSON.stringify(delta.obj)).toBe(true)
  })

  const stream = readCursorStream(lines('synthetic-cursor-session.jsonl'))

  it('is completed, with tokens summed over turn-ended usage', () => {
    expect(classifyCursorSession(stream, exited(0))).toEqual({ stop: 'completed' })
    expect(stream.tokens).toEqual({ input: 5950, output: 400, cacheRead: 16450, cacheWrite: 0 })
    expect(stream.model).toBe('gpt-5')
  })

  it('counts steps as turns, tool calls, and those before the first edit', () => {
    expect(stream.turns).toBe(4)
    expect(stream.toolCalls).toBe(3)
    expect(stream.toolCallsBeforeFirstEdit).toBe(2)
  })

  it("prefers wait()'s cumulative usage when the run reports it", () => {
    const usage = { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4, totalTokens: 10 }
    const withUsage = lines('synthetic-cursor-session.jsonl').map((line) =>
      line.includes('"tag":"wait"') ? line.replace('"durationMs":2452', `"durationMs":2452,"usage":${JSON.stringify(usage)}`) : line,
    )
    expect(readCursorStream(withUsage).tokens).toEqual({ input: 1, output: 2, cacheRead: 3, cacheWrite: 4 })
  })
})

describe('sessions built from the synthetic one', () => {
  const session = lines('synthetic-cursor-session.jsonl').filter((line) => line !== '')

  it('finished without any usage cannot be priced: no result', () => {
    const noUsage = session.filter((line) => !line.includes('turn-ended'))
    expect(failureOf(() => classifyCursorSession(readCursorStream(noUsage), exited(0))).reason).toBe('no-result')
  })

  it('finished with zero usage is a $0 success', () => {
    const zero = session.map((line) =>
      line.includes('turn-ended') ? line.replace(/"usage":\{[^}]*\}/, '"usage":{"inputTokens":0,"outputTokens":0,"cacheReadTokens":0,"cacheWriteTokens":0}') : line,
    )
    expect(failureOf(() => classifyCursorSession(readCursorStream(zero), exited(0))).reason).toBe('zero-cost')
  })

  it('an AuthenticationError is an auth failure even when wait() came back', () => {
    const rejected = [...session, JSON.stringify({ tag: 'unhandledRejection', obj: { name: 'AuthenticationError', message: 'Invalid API key', code: 'unauthenticated' } })]
    const failure = failureOf(() => classifyCursorSession(readCursorStream(rejected), exited(0)))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
  })

  it('a timeout while the agent was working is a timeout stop', () => {
    expect(classifyCursorSession(readCursorStream(session.slice(0, 10)), exited(null, { timedOut: true, signal: 'SIGTERM' }))).toEqual({ stop: 'timeout' })
  })

  it('a runner killed by SIGSEGV on an old Node is a crash naming the Node it needs, not retried', () => {
    const failure = failureOf(() => classifyCursorSession(readCursorStream(session.slice(0, 1)), exited(null, { signal: 'SIGSEGV', nodeVersion: '20.20.2' })))
    expect(failure.reason).toBe('crash')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(/Node 20\.20\.2; @cursor\/sdk needs Node >= 22\.23/)
  })

  it('knows which Node versions are too old', () => {
    expect(nodeTooOld('20.20.2')).toBe(true)
    expect(nodeTooOld('22.12.0')).toBe(true)
    expect(nodeTooOld('v22.13.0')).toBe(true)
    expect(nodeTooOld('v22.23.5')).toBe(false)
    expect(nodeTooOld('24.1.0')).toBe(false)
  })
})
