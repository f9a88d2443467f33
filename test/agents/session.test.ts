import { describe, expect, test } from 'vitest'
import { classifySession, type SessionEnd, type SessionRules } from '../../src/agents/session.ts'
import { HarnessFailure } from '../../src/errors.ts'

// The one classification sequence every adapter shares, exercised with a made-up agent whose stream is a
// plain object: each test sets up one step's condition and checks that the step, and no later one, decides.

interface Stream {
  readonly result: boolean
  readonly tokens: number
  readonly answered: boolean
  readonly failureEvent?: string
}

const rules: SessionRules<Stream> = {
  name: 'toy',
  failureReason: (message) => (/401/.test(message) ? 'auth' : 'api-error'),
  signalled: (stream) => {
    if (stream.failureEvent !== undefined) throw new HarnessFailure('api-error', `toy: ${stream.failureEvent}`)
    return undefined
  },
  stalledAtTimeout: (stream) => (stream.answered ? undefined : { lastError: 'HTTP 401' }),
  missingResult: (stream) => (stream.result ? null : 'toy printed no result'),
  unusedModel: (stream) => (stream.tokens === 0 ? 'toy used no tokens' : null),
}

const finished: Stream = { result: true, tokens: 10, answered: true }
const exited = (exitCode: number | null, more: Partial<SessionEnd> = {}): SessionEnd => ({ exitCode, timedOut: false, aborted: false, stderr: '', ...more })

function failure(stream: Stream, end: SessionEnd): HarnessFailure {
  try {
    classifySession(rules, stream, end)
  } catch (error) {
    if (error instanceof HarnessFailure) return error
    throw error
  }
  throw new Error('expected a HarnessFailure')
}

describe('classifySession', () => {
  test('a session with a result that used the model is completed', () => {
    expect(classifySession(rules, finished, exited(0))).toEqual({ stop: 'completed' })
  })

  test('an aborted run is a crash that is not retried, whatever else it shows', () => {
    const aborted = failure({ ...finished, failureEvent: 'boom' }, exited(null, { aborted: true, timedOut: true }))
    expect([aborted.reason, aborted.retryable, aborted.message]).toEqual(['crash', false, 'toy: the run was aborted'])
  })

  test("the agent's own failure signal comes before the timeout", () => {
    expect(failure({ ...finished, failureEvent: 'turn failed' }, exited(null, { timedOut: true })).message).toBe('toy: turn failed')
  })

  test('at the timeout a working agent stops as a timeout, one that never got an answer is a failure naming the last error', () => {
    expect(classifySession(rules, { ...finished, result: false }, exited(null, { timedOut: true }))).toEqual({ stop: 'timeout' })
    const stalled = failure({ ...finished, answered: false }, exited(null, { timedOut: true }))
    expect([stalled.reason, stalled.message]).toEqual(['auth', 'toy: no answer from the model API before the timeout; last error: HTTP 401'])
  })

  test('a non-zero exit is a crash naming the exit and stderr, before a missing result', () => {
    const crashed = failure({ ...finished, result: false }, exited(3, { stderr: 'segfault\n' }))
    expect([crashed.reason, crashed.message]).toEqual(['crash', 'toy exited 3 without a result: segfault'])
  })

  test('exit 0 without a result is no result', () => {
    expect(failure({ ...finished, result: false }, exited(0)).reason).toBe('no-result')
  })

  test('a result that used no tokens is a $0 success: zero-cost', () => {
    expect(failure({ ...finished, tokens: 0 }, exited(0)).reason).toBe('zero-cost')
  })
})
