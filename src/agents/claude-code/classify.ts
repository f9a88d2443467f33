import { HarnessFailure, type HarnessFailureReason } from '../../errors.ts'
import { classifySession, type SessionEnd, type SessionRules } from '../session.ts'
import type { Tokens } from '../usage.ts'
import type { AgentStop } from '../types.ts'
import type { ClaudeStream } from './stream.ts'

/**
 * Decides what a Claude Code session was: a measurement (the agent finished,
 * or its own turn or budget limit stopped it, or the harness's timeout killed
 * it) or a harness failure (it measured nothing). Pure: the adapter feeds it
 * the parsed stream and how the process ended; the fixtures in the tests feed
 * it the captured outputs of the real CLI.
 */

/** How the CLI process ended. */
export interface ClaudeProcessEnd extends SessionEnd {
  readonly signal: string | null
}

/** A session that measured something. */
export interface ClaudeMeasured {
  readonly kind: 'measured'
  readonly stop: AgentStop
  readonly costUsd: number
  readonly tokens: Tokens | null
  readonly turns: number | null
}

/** A session that measured nothing, and why. */
export interface ClaudeFailed {
  readonly kind: 'failure'
  readonly reason: HarnessFailureReason
  readonly message: string
  readonly retryable: boolean
}

export type ClaudeClassification = ClaudeMeasured | ClaudeFailed

function lastLines(text: string, max = 1500): string {
  const trimmed = text.trim()
  return trimmed.length <= max ? trimmed : `…${trimmed.slice(-max)}`
}

/** The CLI's own words for a failed result, with the fields that classified it. */
function describeResult(stream: ClaudeStream): string {
  const result = stream.result!
  const said = result.result ?? (result.errors.length > 0 ? result.errors.join('; ') : '(no message)')
  const fields = [
    `subtype ${result.subtype ?? 'none'}`,
    `is_error ${result.isError}`,
    `api_error_status ${result.apiErrorStatus ?? 'null'}`,
    `terminal_reason ${result.terminalReason ?? 'none'}`,
    `total_cost_usd ${result.totalCostUsd ?? 'none'}`,
  ]
  return `claude: ${said} (${fields.join(', ')})`
}

/**
 * What to do when no credentials reached the CLI: the run's environment is an allowlist, so a key set in the
 * shell reaches the agent only when the experiment names it in `env.pass`.
 */
const NO_KEY_HINT =
  "no credentials reached claude; set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN, from `claude setup-token`) in the environment and name it in the experiment's env.pass (the agent sees only the variables listed there)"

/** What to check when the API refused the credentials the CLI sent. */
const REJECTED_KEY_HINT = "the API refused the key; check the ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) that the experiment's env.pass hands the agent"

const CLAUDE_RULES: SessionRules<ClaudeStream, ClaudeProcessEnd> = {
  name: 'claude',
  failureReason: () => 'api-error',
  // Stopped while the CLI was still retrying a failing API: the model never got to work.
  signalled: (stream, end) => {
    if (stream.result !== null || stream.retryingApi === null) return undefined
    const status = stream.retryingApi.status
    const how = end.timedOut ? "the harness's timeout killed it" : `it ended (exit ${end.exitCode})`
    const message = `claude was still retrying a failing API (HTTP ${status ?? 'none'}, ${stream.apiRetries} retries) when ${how}`
    throw new HarnessFailure(status === 401 || status === 403 ? 'auth' : 'api-error', message)
  },
  // A non-zero exit with a result is read from the result (the CLI exits 1 on an `is_error` result).
  failedExit: (stream, end) => {
    if (stream.result !== null) return undefined
    const printed = printedBy(stream, end)
    if (end.signal !== null) return new HarnessFailure('crash', `claude was killed by ${end.signal} before its result${printed === '' ? '' : `: ${printed}`}`)
    if (stream.events > 0) return undefined
    return new HarnessFailure(
      'refused',
      `claude refused to start (exit ${end.exitCode}): ${printed === '' ? '(it printed nothing; as root, bypassPermissions needs IS_SANDBOX=1)' : printed}`,
      { retryable: false },
    )
  },
  missingResult: (stream, end) => {
    if (stream.result !== null) return null
    const printed = printedBy(stream, end)
    return `claude ended (exit ${end.exitCode}) without a result event after ${stream.events} event(s)${printed === '' ? '' : `: ${printed}`}`
  },
  resultStop: (stream) => {
    const result = stream.result!
    // The agent's own limits stopped it: a measurement (the oracle judges what it left), though is_error is true.
    if (result.subtype === 'error_max_turns') return 'max-turns'
    if (result.subtype === 'error_max_budget_usd') return 'max-budget'
    const modelNeverAnswered = (result.totalCostUsd ?? 0) === 0 && result.models.length === 0
    if (result.apiErrorStatus === 401 || result.apiErrorStatus === 403) throw new HarnessFailure('auth', `${describeResult(stream)}: ${REJECTED_KEY_HINT}`)
    if (result.isError && modelNeverAnswered && stream.init?.apiKeySource === 'none') throw new HarnessFailure('auth', `${describeResult(stream)}: ${NO_KEY_HINT}`)
    if (result.isError) {
      const apiFailed = result.terminalReason === 'api_error' || result.apiErrorStatus !== null || stream.apiRetries > 0 || modelNeverAnswered
      throw new HarnessFailure(apiFailed ? 'api-error' : 'agent-error', describeResult(stream))
    }
    if (result.terminalReason === 'api_error') throw new HarnessFailure('api-error', describeResult(stream))
    return undefined
  },
  unusedModel: (stream) => {
    const cost = stream.result!.totalCostUsd
    return cost === null || cost <= 0 ? `${describeResult(stream)}: a "successful" session that cost nothing never reached the model` : null
  },
}

function printedBy(stream: ClaudeStream, end: ClaudeProcessEnd): string {
  return lastLines(end.stderr) || lastLines(stream.unparsedLines.join('\n'))
}

/**
 * Whether the stream is the CLI's own: exactly one `result` event, nothing
 * after it, and a clean exit after a successful one. Hooks, MCP servers and
 * tools run inside the session with the CLI's uid; one that reaches the CLI's
 * stdout (`pidfd_getfd(2)`, a descriptor it inherited) can print a second,
 * cheaper result after the real one. The message says what was found, or null.
 */
export function forgedReport(stream: ClaudeStream, end: ClaudeProcessEnd): string | null {
  if (stream.resultEvents > 1) return `claude's stream holds ${stream.resultEvents} result events; the CLI prints exactly one`
  if (stream.linesAfterResult > 0) return `claude's stream has ${stream.linesAfterResult} line(s) after its result event; the CLI prints nothing after it`
  const result = stream.result
  if (result !== null && !result.isError && !end.timedOut && end.signal === null && end.exitCode !== 0) {
    return `claude printed a successful result but exited ${end.exitCode}; the CLI exits 0 after one`
  }
  return null
}

/** Classifies one session (see `classifySession` and the rules above), as a value rather than a throw. */
export function classifyClaudeRun(stream: ClaudeStream, end: ClaudeProcessEnd): ClaudeClassification {
  const forged = forgedReport(stream, end)
  if (forged !== null) {
    return {
      kind: 'failure',
      reason: 'tampered',
      message: `${forged}: something in the session wrote to the CLI's output, so its report (cost, turns, hooks) cannot be trusted. The experiment stops; this run is not recorded (what it left and the gateway's count of it are kept in unrecorded/). Look at the arm's hooks, MCP servers and tools.`,
      retryable: false,
    }
  }
  let stop: AgentStop
  try {
    stop = classifySession(CLAUDE_RULES, stream, end).stop
  } catch (error) {
    if (!(error instanceof HarnessFailure)) throw error
    return { kind: 'failure', reason: error.reason, message: error.message, retryable: error.retryable }
  }
  const result = stream.result
  return { kind: 'measured', stop, costUsd: result?.totalCostUsd ?? 0, tokens: result?.tokens ?? null, turns: result?.numTurns ?? null }
}
