import type { Tokens } from '../usage.ts'
import { eachJsonEvent } from '../json-line.ts'

/**
 * Reading `gemini -p … -o stream-json`: one JSON event per line (`init`,
 * `message`, `tool_use`, `tool_result`, `error`, `result`). Pure: the adapter
 * feeds it the lines and decides with `classify.ts` what the session was.
 */

/** Tools that change files: the first one ends "tool calls before the first edit". */
export const GEMINI_EDIT_TOOLS: ReadonlySet<string> = new Set(['replace', 'write_file', 'edit'])

/** `result.stats` of the stream (totals over every API call of the session). */
export interface GeminiStreamStats {
  /** Prompt tokens, cached ones included. */
  readonly input_tokens?: number
  /** Visible output (candidates) only: thinking tokens are not in it. */
  readonly output_tokens?: number
  /** Prompt tokens read from the cache. */
  readonly cached?: number
  /** Prompt tokens not read from the cache. */
  readonly input?: number
  /** The API's `totalTokenCount` summed: prompt + candidates + thoughts (+ tool-use prompt). */
  readonly total_tokens?: number
  readonly tool_calls?: number
}

/**
 * Our tokens from the stream's totals. Thinking tokens bill at the output
 * rate but the stream leaves them out of `output_tokens`; they are what
 * `total_tokens` has beyond prompt and candidates. (Tool-use prompt tokens,
 * from server-side tools like Google Search grounding, fall there too and are
 * then billed as output: the stream cannot tell them apart.)
 */
export function geminiStreamTokens(stats: GeminiStreamStats): Tokens {
  const prompt = stats.input_tokens ?? 0
  const cached = stats.cached ?? 0
  const candidates = stats.output_tokens ?? 0
  const thoughts = Math.max(0, (stats.total_tokens ?? prompt + candidates) - prompt - candidates)
  return { input: Math.max(0, prompt - cached), output: candidates + thoughts, cacheRead: cached, cacheWrite: 0 }
}

/** The `result` event. */
export interface GeminiResult {
  readonly status: string
  readonly error: { readonly type: string; readonly message: string } | null
  readonly stats: GeminiStreamStats | null
}

/** What a Gemini stream says. */
export interface GeminiStream {
  readonly sessionId: string | null
  /** The model from `init` (`auto` when the CLI routes). */
  readonly model: string | null
  readonly result: GeminiResult | null
  /** From the result's stats; null without a result. */
  readonly tokens: Tokens | null
  /** Distinct `tool_use` events. */
  readonly toolCalls: number
  /** `tool_use` events before the first file edit (`replace`, `write_file`); null when nothing was edited that way. */
  readonly toolCallsBeforeFirstEdit: number | null
  /** Assistant messages and tool calls: zero means the model never answered. */
  readonly modelOutputs: number
  /** `error` events (warnings included), in order. */
  readonly errors: readonly { readonly severity: string; readonly message: string }[]
  readonly lastEventType: string | null
  readonly unparsedLines: number
}

interface GeminiEvent {
  readonly type?: string
  readonly session_id?: string
  readonly model?: string
  readonly role?: string
  readonly tool_name?: string
  readonly tool_id?: string
  readonly status?: string
  readonly severity?: string
  readonly message?: string
  readonly error?: { readonly type?: string; readonly message?: string }
  readonly stats?: GeminiStreamStats
}

/** Reads a `gemini -o stream-json` stream (its stdout, line by line). */
export function readGeminiStream(lines: Iterable<string>): GeminiStream {
  let sessionId: string | null = null
  let model: string | null = null
  let result: GeminiResult | null = null
  const tools = new Set<string>()
  let toolCallsBeforeFirstEdit: number | null = null
  let modelOutputs = 0
  const errors: { severity: string; message: string }[] = []

  const { unparsedLines, lastEventType } = eachJsonEvent<GeminiEvent>(lines, (event) => {
    switch (event.type) {
      case 'init':
        sessionId = event.session_id ?? sessionId
        model = event.model ?? model
        break
      case 'message':
        if (event.role === 'assistant') modelOutputs++
        break
      case 'tool_use': {
        modelOutputs++
        const id = event.tool_id ?? `${event.tool_name ?? 'tool'}#${tools.size}`
        if (tools.has(id)) break
        if (toolCallsBeforeFirstEdit === null && GEMINI_EDIT_TOOLS.has(event.tool_name ?? '')) toolCallsBeforeFirstEdit = tools.size
        tools.add(id)
        break
      }
      case 'error':
        errors.push({ severity: event.severity ?? 'error', message: event.message ?? '' })
        break
      case 'result':
        result = {
          status: event.status ?? 'unknown',
          error: event.error === undefined ? null : { type: event.error.type ?? 'unknown', message: event.error.message ?? '' },
          stats: event.stats ?? null,
        }
        break
      default:
        break
    }
  })
  // Assigned in the callback, which the compiler's narrowing does not follow.
  const final = result as GeminiResult | null
  return {
    sessionId,
    model,
    result: final,
    tokens: final?.stats == null ? null : geminiStreamTokens(final.stats),
    toolCalls: tools.size,
    toolCallsBeforeFirstEdit,
    modelOutputs,
    errors,
    lastEventType,
    unparsedLines,
  }
}

/**
 * The message of a failure the CLI printed on stderr: its JSON error
 * (`{"error":{"message":…,"code":41}}` with `-o json`), else the last lines
 * that are not its start-up warnings.
 */
export function geminiStderrMessage(stderr: string): string {
  const start = stderr.indexOf('{')
  const end = stderr.lastIndexOf('}')
  if (start !== -1 && end > start) {
    try {
      const parsed = JSON.parse(stderr.slice(start, end + 1)) as { error?: { message?: string } }
      if (typeof parsed.error?.message === 'string') return parsed.error.message
    } catch {
      // not one JSON document: fall back to the text
    }
  }
  const noise = /^(Warning: |YOLO mode is enabled|Ripgrep is not available|\[STARTUP\]|Loaded cached credentials|\s+at )/
  // eslint-disable-next-line no-control-regex
  const lines = stderr
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '' && !noise.test(line))
  return lines.slice(-3).join(' ').slice(-800)
}
