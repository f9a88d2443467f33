import { HarnessFailure } from '../../errors.ts'
import { classifySession, crashedExit, zeroTokens, type SessionEnd, type SessionRules, type SessionStop } from '../session.ts'
import type { CodexStream } from './stream.ts'

/**
 * What a Codex session was, from its stream and how its process ended: a
 * session the oracle can judge (`completed`, or `timeout` when the agent was
 * working when the harness's clock ran out), or a harness failure.
 */

/** How the `codex` process ended. */
export type CodexExit = SessionEnd

/** Rate limits, overload, server errors and network trouble: another attempt may succeed (checked first). */
const TRANSIENT = /\b429\b|\b5\d\d\b|rate.?limit|quota|overloaded|high demand|stream disconnected|reconnecting|error sending request|timed? ?out/i
/** Messages that mean the credentials are missing or rejected: another attempt fails the same way. */
const AUTH = /\b401\b|\b403\b|unauthori[sz]ed|forbidden|missing environment variable|incorrect api key|invalid api key|not logged in/i

/** Classifies a failure message: `auth` (not retryable) or `api-error`. */
export function codexFailureReason(message: string): 'auth' | 'api-error' {
  return !TRANSIENT.test(message) && AUTH.test(message) ? 'auth' : 'api-error'
}

const CODEX_RULES: SessionRules<CodexStream> = {
  name: 'codex',
  failureReason: codexFailureReason,
  signalled: (stream) => {
    if (stream.failure !== null) throw new HarnessFailure(codexFailureReason(stream.failure), `codex: turn failed: ${stream.failure}`)
    return undefined
  },
  // Offline, Codex never gives up (it reconnects forever): a session in which the model never answered,
  // or which was still failing to reach the API when the clock ran out, measured nothing.
  stalledAtTimeout: (stream) => (stream.modelItems === 0 || stream.lastEventType === 'error' ? { lastError: stream.errors.at(-1) ?? null } : undefined),
  failedExit: (stream, end) => {
    const last = stream.errors.at(-1)
    return last === undefined ? crashedExit('codex', end) : new HarnessFailure(codexFailureReason(last), `codex exited ${end.exitCode}: ${last}`)
  },
  missingResult: (stream) =>
    stream.turnCompleted && stream.usage !== null
      ? null
      : `codex exited 0 without a turn.completed event${stream.unparsedLines > 0 ? ` (${stream.unparsedLines} lines were not JSON)` : ''}`,
  unusedModel: (stream) => zeroTokens('codex', stream.usage),
}

/** Classifies a Codex session (see `classifySession`); a timeout is read from the stream. */
export function classifyCodexSession(stream: CodexStream, exit: CodexExit): SessionStop {
  return classifySession(CODEX_RULES, stream, exit)
}
