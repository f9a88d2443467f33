import { HarnessFailure } from '../../errors.ts'
import { classifySession, zeroTokens, type SessionEnd, type SessionRules, type SessionStop } from '../session.ts'
import { geminiStderrMessage, type GeminiStream } from './stream.ts'

/**
 * What a Gemini CLI session was, from its stream, its exit code and its
 * stderr: a session the oracle can judge, or a harness failure.
 */

/** How the `gemini` process ended. */
export type GeminiExit = SessionEnd

/** The CLI's exit codes (its `Fatal*Error` classes). */
export const GEMINI_EXIT = {
  authentication: 41,
  input: 42,
  sandbox: 44,
  config: 52,
  turnLimit: 53,
  toolExecution: 54,
  untrustedWorkspace: 55,
  cancelled: 130,
} as const

/** Rate limits, overload, server errors and network trouble: another attempt may succeed (checked first). */
const TRANSIENT = /\b429\b|\b5\d\d\b|rate.?limit|quota|resource_exhausted|overloaded|unavailable|fetch failed|econn|socket|timed? ?out/i
/** Missing or rejected credentials. (Not "auth method" alone: the CLI's rate-limit message suggests switching one.) */
const AUTH = /\b401\b|\b403\b|unauthenticated|permission_denied|api key not valid|invalid api key|GEMINI_API_KEY|set an auth method|must specify/i

/** Classifies a failure message: `auth` (not retryable) or `api-error`. */
export function geminiFailureReason(message: string): 'auth' | 'api-error' {
  return !TRANSIENT.test(message) && AUTH.test(message) ? 'auth' : 'api-error'
}

function stderrMessage(stream: GeminiStream, end: SessionEnd): string {
  return geminiStderrMessage(end.stderr) || stream.result?.error?.message || `exit ${end.exitCode}`
}

const GEMINI_RULES: SessionRules<GeminiStream> = {
  name: 'gemini',
  failureReason: geminiFailureReason,
  // Exit codes first (41 no or bad credentials, 55 untrusted folder, 42/44/52 refused input or
  // configuration, 53 the session's turn limit), then the result event: `status: "error"` is a failure
  // whatever else it says.
  signalled: (stream, end) => {
    switch (end.exitCode) {
      case GEMINI_EXIT.authentication:
        throw new HarnessFailure('auth', `gemini: no usable credentials (exit 41): ${stderrMessage(stream, end)}`)
      case GEMINI_EXIT.untrustedWorkspace:
        throw new HarnessFailure('refused', `gemini: the workspace is not a trusted folder (exit 55): ${stderrMessage(stream, end)}`, { retryable: false })
      case GEMINI_EXIT.input:
      case GEMINI_EXIT.sandbox:
      case GEMINI_EXIT.config:
        throw new HarnessFailure('refused', `gemini refused its input or configuration (exit ${end.exitCode}): ${stderrMessage(stream, end)}`, { retryable: false })
      case GEMINI_EXIT.turnLimit:
        return 'max-turns'
      default:
        break
    }
    const result = stream.result
    if (result === null || result.status === 'success') return undefined
    if (result.error?.type === 'FatalTurnLimitedError') return 'max-turns'
    const message = result.error?.message || stream.errors.at(-1)?.message || stderrMessage(stream, end)
    throw new HarnessFailure(geminiFailureReason(message), `gemini: the session ended in error (${result.error?.type ?? result.status}): ${message}`)
  },
  stalledAtTimeout: (stream) => (stream.modelOutputs === 0 || stream.lastEventType === 'error' ? { lastError: stream.errors.at(-1)?.message ?? null } : undefined),
  failedExit: (stream, end) => {
    const message = stderrMessage(stream, end)
    const offline = stream.result === null && /fetch failed|ECONN|socket|network/i.test(message)
    return new HarnessFailure(offline ? 'api-error' : 'crash', `gemini exited ${end.exitCode ?? 'on a signal'} without a result: ${message}`)
  },
  missingResult: (stream) =>
    stream.result !== null && stream.tokens !== null
      ? null
      : `gemini exited 0 without a result event${stream.unparsedLines > 0 ? ` (${stream.unparsedLines} lines were not JSON)` : ''}`,
  unusedModel: (stream) => zeroTokens('gemini', stream.tokens),
}

/** Classifies a Gemini CLI session (see `classifySession` and the rules above). */
export function classifyGeminiSession(stream: GeminiStream, exit: GeminiExit): SessionStop {
  return classifySession(GEMINI_RULES, stream, exit)
}
