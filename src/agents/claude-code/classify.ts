import type { HarnessFailureReason } from '../../errors.ts'
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
export interface ClaudeProcessEnd {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly aborted: boolean
  readonly stderr: string
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

function failure(reason: HarnessFailureReason, message: string, retryable = reason !== 'auth'): ClaudeFailed {
  return { kind: 'failure', reason, message, retryable }
}

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

/** Classifies one session. See the module comment. */
export function classifyClaudeRun(stream: ClaudeStream, end: ClaudeProcessEnd): ClaudeClassification {
  const result = stream.result
  if (end.aborted) return failure('crash', 'the run was aborted before claude finished', false)
  // Stopped while the CLI was still retrying a failing API: the model never got to work.
  if (result === null && stream.retryingApi !== null) {
    const status = stream.retryingApi.status
    const how = end.timedOut ? "the harness's timeout killed it" : `it ended (exit ${end.exitCode})`
    const message = `claude was still retrying a failing API (HTTP ${status ?? 'none'}, ${stream.apiRetries} retries) when ${how}`
    return status === 401 || status === 403 ? failure('auth', message) : failure('api-error', message)
  }
  if (end.timedOut) {
    return { kind: 'measured', stop: 'timeout', costUsd: result?.totalCostUsd ?? 0, tokens: result?.tokens ?? null, turns: result?.numTurns ?? null }
  }
  if (result === null) {
    const printed = lastLines(end.stderr) || lastLines(stream.unparsedLines.join('\n'))
    if (end.signal !== null) return failure('crash', `claude was killed by ${end.signal} before its result${printed === '' ? '' : `: ${printed}`}`)
    if (stream.events === 0 && end.exitCode !== 0) {
      return failure(
        'refused',
        `claude refused to start (exit ${end.exitCode}): ${printed === '' ? '(it printed nothing; as root, bypassPermissions needs IS_SANDBOX=1)' : printed}`,
        false,
      )
    }
    return failure('no-result', `claude ended (exit ${end.exitCode}) without a result event after ${stream.events} event(s)${printed === '' ? '' : `: ${printed}`}`)
  }
  const measured = (stop: AgentStop): ClaudeMeasured => ({
    kind: 'measured',
    stop,
    costUsd: result.totalCostUsd ?? 0,
    tokens: result.tokens,
    turns: result.numTurns,
  })
  // The agent's own limits stopped it: a measurement (the oracle judges what it left), though is_error is true.
  if (result.subtype === 'error_max_turns') return measured('max-turns')
  if (result.subtype === 'error_max_budget_usd') return measured('max-budget')
  const modelNeverAnswered = (result.totalCostUsd ?? 0) === 0 && result.models.length === 0
  if (result.apiErrorStatus === 401 || result.apiErrorStatus === 403) return failure('auth', describeResult(stream))
  if (result.isError && modelNeverAnswered && stream.init?.apiKeySource === 'none') return failure('auth', describeResult(stream))
  if (result.isError) {
    const apiFailed = result.terminalReason === 'api_error' || result.apiErrorStatus !== null || stream.apiRetries > 0 || modelNeverAnswered
    return failure(apiFailed ? 'api-error' : 'agent-error', describeResult(stream))
  }
  if (result.terminalReason === 'api_error') return failure('api-error', describeResult(stream))
  if (result.totalCostUsd === null || result.totalCostUsd <= 0) {
    return failure('zero-cost', `${describeResult(stream)}: a "successful" session that cost nothing never reached the model`)
  }
  return measured('completed')
}
