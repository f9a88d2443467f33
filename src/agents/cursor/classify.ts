import { HarnessFailure } from '../../errors.ts'
import { classifySession, zeroTokens, type SessionEnd, type SessionRules, type SessionStop } from '../session.ts'
import type { CursorError, CursorStream } from './stream.ts'
import { tail } from '../../shared/tail.ts'

/**
 * What a Cursor session was, from the runner's output and how the runner
 * ended: a session the oracle can judge, or a harness failure.
 */

/** How the runner process ended. */
export interface CursorExit extends SessionEnd {
  readonly signal: string | null
  /** The Node that ran it (`process.versions.node` style), for crash messages. */
  readonly nodeVersion: string
}

/**
 * The oldest Node on which `@cursor/sdk` 1.0.31 runs a local session. Its
 * `engines.node` says 22.13, but its native tree-sitter binding segfaults on
 * 22.13.0 as on Node 20 (tested here); 22.23.5 and 24.22.3 run it.
 */
export const CURSOR_MIN_NODE = [22, 23] as const

/** True when `version` (e.g. `20.20.2`) is older than the SDK's minimum. */
export function nodeTooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number)
  return major < CURSOR_MIN_NODE[0] || (major === CURSOR_MIN_NODE[0] && minor < CURSOR_MIN_NODE[1])
}

const AUTH = /\b401\b|unauthenticated|invalid api key|api key is (missing|required)|not logged in/i

/** The reason an SDK error stands for. */
export function cursorErrorReason(error: CursorError): 'auth' | 'api-error' | 'refused' {
  if (error.name === 'AuthenticationError' || error.code === 'unauthenticated' || AUTH.test(error.message)) return 'auth'
  if (error.name === 'ConfigurationError' && error.isRetryable !== true) return 'refused'
  return 'api-error'
}

const CURSOR_RULES: SessionRules<CursorStream, CursorExit> = {
  name: 'cursor',
  service: 'the Cursor backend',
  failureReason: (message) => (AUTH.test(message) ? 'auth' : 'api-error'),
  stalledAtTimeout: (stream) => {
    if (stream.modelOutputs > 0 && stream.lastTag !== 'error' && stream.lastTag !== 'unhandledRejection') return undefined
    const last = stream.errors.at(-1)
    return last === undefined ? { lastError: null } : { lastError: last.message, reason: cursorErrorReason(last) === 'auth' ? 'auth' : 'api-error' }
  },
  // An SDK error (thrown, or an unhandled rejection) is a failure whatever `wait()` said; a runner that died
  // on a signal crashed (on Node older than 22.23 the SDK's native tree-sitter binding segfaults as soon as
  // a local session starts).
  crashed: (stream, exit) => {
    if (exit.signal !== null || (exit.exitCode !== null && exit.exitCode > 128)) {
      const hint = nodeTooOld(exit.nodeVersion)
        ? ` (this is Node ${exit.nodeVersion}; @cursor/sdk needs Node >= ${CURSOR_MIN_NODE.join('.')}: its native tree-sitter binding crashes older ones — set agent.options.node to a newer Node)`
        : ''
      throw new HarnessFailure(
        'crash',
        `cursor: the SDK runner died (${exit.signal ?? `exit ${exit.exitCode}`})${hint}${exit.stderr.trim() === '' ? '' : `: ${tail(exit.stderr)}`}`,
        {
          retryable: hint === '',
        },
      )
    }
    const error = stream.errors.find((candidate) => cursorErrorReason(candidate) === 'auth') ?? stream.errors.at(-1)
    if (error !== undefined) {
      const reason = cursorErrorReason(error)
      throw new HarnessFailure(reason, `cursor: ${error.name ?? 'error'}: ${error.message}`, reason === 'refused' ? { retryable: false } : {})
    }
    if (stream.status === 'error' || stream.status === 'cancelled') {
      const message = stream.runError ?? `the run ended with status ${stream.status}`
      throw new HarnessFailure(AUTH.test(message) ? 'auth' : 'agent-error', `cursor: ${message}`)
    }
  },
  missingResult: (stream) => {
    if (stream.status !== 'finished') return 'cursor: the run never reported a result (no wait() status)'
    return stream.tokens === null ? 'cursor: the run reported no token usage (no turn-ended usage), so it cannot be priced' : null
  },
  unusedModel: (stream) => zeroTokens('cursor', stream.tokens),
}

/** Classifies a Cursor session (see `classifySession` and the rules above). */
export function classifyCursorSession(stream: CursorStream, exit: CursorExit): SessionStop {
  return classifySession(CURSOR_RULES, stream, exit)
}
