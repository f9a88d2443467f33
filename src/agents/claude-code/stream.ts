import type { Tokens } from '../usage.ts'

/**
 * Reads Claude Code's `--output-format stream-json --verbose` output, one JSON
 * object per line, into what the harness needs. Only parsed fields are
 * trusted: text is never matched, since key order and wording change between
 * CLI versions.
 */

/** The tools whose call is an edit: tool calls before the first of them measure exploration. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit'])

/** The fields of the `result` event the harness reads. */
export interface ClaudeResultEvent {
  readonly subtype: string | null
  readonly isError: boolean
  readonly apiErrorStatus: number | null
  readonly terminalReason: string | null
  /** The final text (or the error message, e.g. "Not logged in · Please run /login"). */
  readonly result: string | null
  readonly totalCostUsd: number | null
  readonly numTurns: number | null
  /** Tokens from `modelUsage` summed over models (it carries the spend even when `usage` is zeroed), else `usage`. */
  readonly tokens: Tokens | null
  /** `errors` (e.g. "Reached maximum budget ($0.01)"). */
  readonly errors: readonly string[]
  /** The models named in `modelUsage`. */
  readonly models: readonly string[]
}

/** What one session's stream says. */
export interface ClaudeStream {
  /** Lines that parsed as JSON objects. */
  readonly events: number
  /** Non-empty lines that were not JSON objects. */
  readonly unparsedLines: readonly string[]
  /** The `system/init` event, if any. */
  readonly init: { readonly model: string | null; readonly apiKeySource: string | null; readonly version: string | null } | null
  /** The first `result` event, or null when the session printed none (a second one is forged: see `resultEvents`). */
  readonly result: ClaudeResultEvent | null
  /** How many `result` events the stream holds: the CLI prints exactly one, last. */
  readonly resultEvents: number
  /** Non-empty lines after the first `result` event (the CLI prints none: anything there was written by someone else). */
  readonly linesAfterResult: number
  /** `tool_use` blocks on top-level assistant events (`parent_tool_use_id` null). */
  readonly toolCalls: number
  /** Top-level `tool_use` blocks before the first Edit/Write/MultiEdit/NotebookEdit; null when the session made no edit. */
  readonly toolCallsBeforeFirstEdit: number | null
  /** `system/hook_response` events counted by `hook_event` (SessionEnd never appears in the stream). */
  readonly hooksFired: Readonly<Record<string, number>>
  /** `system/api_retry` events: the API failed and the CLI retried. */
  readonly apiRetries: number
  /**
   * When the stream's last model-related event is an `api_retry` (the CLI was
   * still retrying a failing API when it stopped): that retry's HTTP status.
   */
  readonly retryingApi: { readonly status: number | null } | null
  /** The model the session ran: init's, else the first real assistant message's. */
  readonly model: string | null
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const asNumber = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)
const asString = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const count = (value: unknown): number => Math.max(0, Math.round(asNumber(value) ?? 0))

/** Session tokens: `modelUsage` summed over models, else `usage` (never the per-message snapshots). */
export function resultTokens(event: Json): Tokens | null {
  const modelUsage = event.modelUsage
  if (isObject(modelUsage) && Object.keys(modelUsage).length > 0) {
    const total = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
    for (const usage of Object.values(modelUsage)) {
      if (!isObject(usage)) continue
      total.input += count(usage.inputTokens)
      total.output += count(usage.outputTokens)
      total.cacheRead += count(usage.cacheReadInputTokens)
      total.cacheWrite += count(usage.cacheCreationInputTokens)
    }
    return total
  }
  const usage = event.usage
  if (!isObject(usage)) return null
  return {
    input: count(usage.input_tokens),
    output: count(usage.output_tokens),
    cacheRead: count(usage.cache_read_input_tokens),
    cacheWrite: count(usage.cache_creation_input_tokens),
  }
}

function readResult(event: Json): ClaudeResultEvent {
  return {
    subtype: asString(event.subtype),
    isError: event.is_error === true,
    apiErrorStatus: asNumber(event.api_error_status),
    terminalReason: asString(event.terminal_reason),
    result: asString(event.result),
    totalCostUsd: asNumber(event.total_cost_usd),
    numTurns: asNumber(event.num_turns),
    tokens: resultTokens(event),
    errors: Array.isArray(event.errors) ? event.errors.filter((error): error is string => typeof error === 'string') : [],
    models: isObject(event.modelUsage) ? Object.keys(event.modelUsage) : [],
  }
}

/**
 * Incremental reader: feed it lines as the CLI prints them (`push`), read the
 * summary at the end (`summary`). Robust to blank lines and to lines that are
 * not JSON (kept for the failure message).
 */
export class ClaudeStreamReader {
  #events = 0
  readonly #unparsed: string[] = []
  #init: ClaudeStream['init'] = null
  #result: ClaudeResultEvent | null = null
  #toolCalls = 0
  #beforeFirstEdit: number | null = null
  readonly #hooks: Record<string, number> = {}
  #apiRetries = 0
  #retrying: ClaudeStream['retryingApi'] = null
  #assistantModel: string | null = null
  #results = 0
  #afterResult = 0

  /** Reads one line of the stream. */
  push(line: string): void {
    const text = line.trim()
    if (text === '') return
    if (this.#results > 0) this.#afterResult++
    let event: unknown
    try {
      event = JSON.parse(text)
    } catch {
      this.#unparsed.push(text)
      return
    }
    if (!isObject(event)) {
      this.#unparsed.push(text)
      return
    }
    this.#events++
    if (event.type === 'assistant' || event.type === 'user' || event.type === 'result') this.#retrying = null
    if (event.type === 'system') this.#system(event)
    else if (event.type === 'assistant') this.#assistant(event)
    else if (event.type === 'result') {
      this.#results++
      this.#result ??= readResult(event)
    }
  }

  #system(event: Json): void {
    if (event.subtype === 'init') {
      this.#init = { model: asString(event.model), apiKeySource: asString(event.apiKeySource), version: asString(event.claude_code_version) }
    } else if (event.subtype === 'hook_response') {
      const hook = asString(event.hook_event)
      if (hook !== null) this.#hooks[hook] = (this.#hooks[hook] ?? 0) + 1
    } else if (event.subtype === 'api_retry') {
      this.#apiRetries++
      this.#retrying = { status: asNumber(event.error_status) }
    }
  }

  #assistant(event: Json): void {
    // Sub-agent traffic carries its parent's tool_use id; only the session's own calls count.
    if (event.parent_tool_use_id !== null && event.parent_tool_use_id !== undefined) return
    const message = event.message
    if (!isObject(message)) return
    const model = asString(message.model)
    if (this.#assistantModel === null && model !== null && !model.startsWith('<')) this.#assistantModel = model
    if (!Array.isArray(message.content)) return
    for (const block of message.content) {
      if (!isObject(block) || block.type !== 'tool_use') continue
      if (this.#beforeFirstEdit === null && EDIT_TOOLS.has(asString(block.name) ?? '')) this.#beforeFirstEdit = this.#toolCalls
      this.#toolCalls++
    }
  }

  /** The summary of everything read so far. */
  summary(): ClaudeStream {
    return {
      events: this.#events,
      unparsedLines: [...this.#unparsed],
      init: this.#init,
      result: this.#result,
      resultEvents: this.#results,
      linesAfterResult: this.#afterResult,
      toolCalls: this.#toolCalls,
      toolCallsBeforeFirstEdit: this.#beforeFirstEdit,
      hooksFired: { ...this.#hooks },
      apiRetries: this.#apiRetries,
      retryingApi: this.#retrying,
      model: this.#init?.model ?? this.#assistantModel ?? this.#result?.models[0] ?? null,
    }
  }
}

/** Parses a whole stream at once. */
export function parseClaudeStream(text: string): ClaudeStream {
  const reader = new ClaudeStreamReader()
  for (const line of text.split('\n')) reader.push(line)
  return reader.summary()
}
