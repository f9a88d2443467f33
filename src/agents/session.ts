import { HarnessFailure, type HarnessFailureReason } from '../errors.ts'
import type { AgentStop } from './types.ts'
import type { Tokens } from './usage.ts'
import { tail } from '../shared/tail.ts'

/**
 * The one classification sequence of every agent session: a session the
 * oracle can judge (how it stopped) or a `HarnessFailure` (it measured
 * nothing). The order is the same for every adapter:
 *
 *   aborted → the CLI's own signals → timed out → the process's end →
 *   non-zero exit → no result → the result's own stops → zero usage → completed
 *
 * Each adapter fills in only what is its own (its exit codes, its failure
 * events, where its result and usage live) through `SessionRules`. Pure: the
 * adapters feed it a parsed stream and how the process ended, and the tests
 * feed it the captured output of the real CLIs.
 */

/** How an agent's process ended: what every classification reads. */
export interface SessionEnd {
  /** The leader's exit code, or null when a signal ended it. */
  readonly exitCode: number | null
  /** The signal that ended it, when the adapter tracks one. */
  readonly signal?: string | null
  readonly timedOut: boolean
  readonly aborted: boolean
  /** What it printed on stderr, for messages. */
  readonly stderr: string
}

/** A session to judge: how it stopped. */
export interface SessionStop {
  readonly stop: AgentStop
}

/** What was seen of a session that the harness's timeout stopped before the model answered. */
export interface StalledSession {
  /** The last error the agent saw, or null when the request simply stalled. */
  readonly lastError: string | null
  /** The reason, when the adapter knows better than `failureReason(lastError)`. */
  readonly reason?: HarnessFailureReason
}

/** What is particular to one agent's sessions; every step not given is skipped. */
export interface SessionRules<S, E extends SessionEnd = SessionEnd> {
  /** The agent's name in messages (`codex`, `gemini`). */
  readonly name: string
  /** What the agent talks to, in messages (default `the model API`). */
  readonly service?: string
  /** The reason a failure message stands for: `auth` (not retried) or `api-error`. */
  readonly failureReason: (message: string) => HarnessFailureReason
  /**
   * Failures and stops the agent signals its own way, checked first: its exit
   * codes, a failure event in its stream. Throws the failure; a stop it
   * returns is the session's.
   */
  readonly signalled?: (stream: S, end: E) => AgentStop | undefined
  /**
   * At the harness's timeout: what shows the model never got to work, or
   * undefined when the agent was working (then the session stops as a
   * `timeout`). Absent: a timeout is always a measurement.
   */
  readonly stalledAtTimeout?: (stream: S) => StalledSession | undefined
  /** Failures the process's end shows whatever its exit code (a runner killed by a signal, an SDK error it printed). Throws. */
  readonly crashed?: (stream: S, end: E) => void
  /** The failure a non-zero exit stands for; undefined when the result decides. Default: a crash naming the exit and stderr. */
  readonly failedExit?: (stream: S, end: E) => HarnessFailure | undefined
  /** Why the session has no result to judge, or null when it has one. May throw a failure of its own. */
  readonly missingResult: (stream: S, end: E) => string | null
  /** Failures and stops the result itself reports (the agent's own turn or budget limit). Throws the failure. */
  readonly resultStop?: (stream: S) => AgentStop | undefined
  /** Whether the session used the model at all, or the message saying that it did not (a "$0 success"). */
  readonly unusedModel: (stream: S) => string | null
}

/** The default failure of a non-zero exit: a crash, with what the agent printed on stderr. */
export function crashedExit(name: string, end: SessionEnd): HarnessFailure {
  const printed = tail(end.stderr)
  return new HarnessFailure('crash', `${name} exited ${end.exitCode ?? `on ${end.signal ?? 'a signal'}`} without a result${printed === '' ? '' : `: ${printed}`}`)
}

/** The message of a session that used no tokens: the model was never called. */
export function zeroTokens(name: string, tokens: Tokens | null): string | null {
  if (tokens === null) return null
  return tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite === 0 ? `${name} finished with zero tokens used: the model was never called` : null
}

/** Classifies one session in the order of the module comment. Throws `HarnessFailure` for a session that measured nothing. */
export function classifySession<S, E extends SessionEnd>(rules: SessionRules<S, E>, stream: S, end: E): SessionStop {
  if (end.aborted) throw new HarnessFailure('crash', `${rules.name}: the run was aborted`, { retryable: false })
  const signalled = rules.signalled?.(stream, end)
  if (signalled !== undefined) return { stop: signalled }
  if (end.timedOut) {
    const stalled = rules.stalledAtTimeout?.(stream)
    if (stalled === undefined) return { stop: 'timeout' }
    const reason = stalled.reason ?? (stalled.lastError === null ? 'api-error' : rules.failureReason(stalled.lastError))
    throw new HarnessFailure(
      reason,
      `${rules.name}: no answer from ${rules.service ?? 'the model API'} before the timeout${stalled.lastError === null ? ' (the request stalled)' : `; last error: ${stalled.lastError}`}`,
    )
  }
  rules.crashed?.(stream, end)
  if (end.exitCode !== 0) {
    const failure = rules.failedExit === undefined ? crashedExit(rules.name, end) : rules.failedExit(stream, end)
    if (failure !== undefined) throw failure
  }
  const missing = rules.missingResult(stream, end)
  if (missing !== null) throw new HarnessFailure('no-result', missing)
  const resultStop = rules.resultStop?.(stream)
  if (resultStop !== undefined) return { stop: resultStop }
  const unused = rules.unusedModel(stream)
  if (unused !== null) throw new HarnessFailure('zero-cost', unused)
  return { stop: 'completed' }
}
