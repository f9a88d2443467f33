import { HarnessFailure } from '../../errors.ts'
import type { CodexStream } from './stream.ts'

/**
 * What a Codex session was, from its stream and how its process ended: a
 * session the oracle can judge (`completed`, or `timeout` when the agent was
 * working when the harness's clock ran out), or a harness failure.
 */

/** How the `codex` process ended. */
export interface CodexExit {
  readonly exitCode: number | null
  readonly timedOut: boolean
  readonly aborted: boolean
  /** The tail of stderr, for messages. */
  readonly stderr: string
}

/** A session to judge. */
export type CodexOutcome = { readonly stop: 'completed' } | { readonly stop: 'timeout' }

/** Rate limits, overload, server errors and network trouble: another attempt may succeed (checked first). */
const TRANSIENT = /\b429\b|\b5\d\d\b|rate.?limit|quota|overloaded|high demand|stream disconnected|reconnecting|error sending request|timed? ?out/i
/** Messages that mean the credentials are missing or rejected: another attempt fails the same way. */
const AUTH = /\b401\b|\b403\b|unauthori[sz]ed|forbidden|missing environment variable|incorrect api key|invalid api key|not logged in/i

/** Classifies a failure message: `auth` (not retryable) or `api-error`. */
export function codexFailureReason(message: string): 'auth' | 'api-error' {
  return !TRANSIENT.test(message) && AUTH.test(message) ? 'auth' : 'api-error'
}

function tail(text: string, chars = 600): string {
  const trimmed = text.trim()
  return trimmed.length <= chars ? trimmed : `…${trimmed.slice(-chars)}`
}

/**
 * Classifies a Codex session. Offline, Codex never gives up (it reconnects
 * forever), so a timeout is read from the stream: a session in which the
 * model never answered, or which was still failing to reach the API when the
 * clock ran out, is a harness failure; one that was working is a `timeout`.
 */
export function classifyCodexSession(stream: CodexStream, exit: CodexExit): CodexOutcome {
  if (exit.aborted) throw new HarnessFailure('crash', 'codex: the run was aborted', { retryable: false })
  if (stream.failure !== null) {
    const reason = codexFailureReason(stream.failure)
    throw new HarnessFailure(reason, `codex: turn failed: ${stream.failure}`)
  }
  if (exit.timedOut) {
    if (stream.modelItems === 0 || stream.lastEventType === 'error') {
      const last = stream.errors.at(-1)
      const reason = last === undefined ? 'api-error' : codexFailureReason(last)
      throw new HarnessFailure(
        reason,
        `codex: no answer from the model API before the timeout${last === undefined ? ' (the request stalled)' : `; last error: ${last}`}`,
      )
    }
    return { stop: 'timeout' }
  }
  if (exit.exitCode !== 0) {
    const last = stream.errors.at(-1)
    if (last !== undefined) throw new HarnessFailure(codexFailureReason(last), `codex exited ${exit.exitCode}: ${last}`)
    throw new HarnessFailure('crash', `codex exited ${exit.exitCode ?? 'on a signal'} without a result${exit.stderr.trim() === '' ? '' : `: ${tail(exit.stderr)}`}`)
  }
  if (!stream.turnCompleted || stream.usage === null) {
    throw new HarnessFailure('no-result', `codex exited 0 without a turn.completed event${stream.unparsedLines > 0 ? ` (${stream.unparsedLines} lines were not JSON)` : ''}`)
  }
  const { input, output, cacheRead, cacheWrite } = stream.usage
  if (input + output + cacheRead + cacheWrite === 0) {
    throw new HarnessFailure('zero-cost', 'codex finished with zero tokens used: the model was never called')
  }
  return { stop: 'completed' }
}
