import { HarnessFailure } from '../../errors.ts'
import { geminiStderrMessage, type GeminiStream } from './stream.ts'

/**
 * What a Gemini CLI session was, from its stream, its exit code and its
 * stderr: a session the oracle can judge, or a harness failure.
 */

/** How the `gemini` process ended. */
export interface GeminiExit {
  readonly exitCode: number | null
  readonly timedOut: boolean
  readonly aborted: boolean
  readonly stderr: string
}

/** A session to judge: finished, stopped by its own turn limit, or still working at the harness's timeout. */
export type GeminiOutcome = { readonly stop: 'completed' } | { readonly stop: 'max-turns' } | { readonly stop: 'timeout' }

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

/**
 * Classifies a Gemini CLI session. Exit codes first (41 no or bad
 * credentials, 55 untrusted folder, 42/44/52 refused input or configuration,
 * 53 the session's turn limit), then the `result` event (`status: "error"`
 * is a failure whatever else it says), then the timeout.
 */
export function classifyGeminiSession(stream: GeminiStream, exit: GeminiExit): GeminiOutcome {
  if (exit.aborted) throw new HarnessFailure('crash', 'gemini: the run was aborted', { retryable: false })
  const stderrMessage = () => geminiStderrMessage(exit.stderr) || stream.result?.error?.message || `exit ${exit.exitCode}`
  switch (exit.exitCode) {
    case GEMINI_EXIT.authentication:
      throw new HarnessFailure('auth', `gemini: no usable credentials (exit 41): ${stderrMessage()}`)
    case GEMINI_EXIT.untrustedWorkspace:
      throw new HarnessFailure('refused', `gemini: the workspace is not a trusted folder (exit 55): ${stderrMessage()}`, { retryable: false })
    case GEMINI_EXIT.input:
    case GEMINI_EXIT.sandbox:
    case GEMINI_EXIT.config:
      throw new HarnessFailure('refused', `gemini refused its input or configuration (exit ${exit.exitCode}): ${stderrMessage()}`, { retryable: false })
    case GEMINI_EXIT.turnLimit:
      return { stop: 'max-turns' }
    default:
      break
  }
  const result = stream.result
  if (result !== null && result.status !== 'success') {
    if (result.error?.type === 'FatalTurnLimitedError') return { stop: 'max-turns' }
    const message = result.error?.message || stream.errors.at(-1)?.message || stderrMessage()
    throw new HarnessFailure(geminiFailureReason(message), `gemini: the session ended in error (${result.error?.type ?? result.status}): ${message}`)
  }
  if (exit.timedOut) {
    if (stream.modelOutputs === 0 || stream.lastEventType === 'error') {
      const last = stream.errors.at(-1)?.message
      throw new HarnessFailure(
        last === undefined ? 'api-error' : geminiFailureReason(last),
        `gemini: no answer from the model API before the timeout${last === undefined ? ' (the request stalled)' : `; last error: ${last}`}`,
      )
    }
    return { stop: 'timeout' }
  }
  if (exit.exitCode !== 0) {
    const message = stderrMessage()
    throw new HarnessFailure(stream.result === null && /fetch failed|ECONN|socket|network/i.test(message) ? 'api-error' : 'crash', `gemini exited ${exit.exitCode ?? 'on a signal'} without a result: ${message}`)
  }
  if (result === null || stream.tokens === null) {
    throw new HarnessFailure('no-result', `gemini exited 0 without a result event${stream.unparsedLines > 0 ? ` (${stream.unparsedLines} lines were not JSON)` : ''}`)
  }
  const { input, output, cacheRead, cacheWrite } = stream.tokens
  if (input + output + cacheRead + cacheWrite === 0) {
    throw new HarnessFailure('zero-cost', 'gemini finished with zero tokens used: the model was never called')
  }
  return { stop: 'completed' }
}
