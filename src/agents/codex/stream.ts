import type { Tokens } from '../usage.ts'
import { eachJsonEvent } from '../json-line.ts'

/**
 * Reading `codex exec --json`: one JSON event per line (`thread.started`,
 * `turn.started`, `item.started|updated|completed`, `turn.completed` with
 * usage, `turn.failed`, `error`). Pure: the adapter feeds it the lines and
 * decides with `classify.ts` what the session was.
 */

/** Codex's usage object (`turn.completed.usage`, and each request in the rollout). */
export interface CodexUsage {
  readonly input_tokens?: number
  /** Part of `input_tokens`. */
  readonly cached_input_tokens?: number
  /** Part of `input_tokens` (taken to be, like the cached part; OpenAI reports none). */
  readonly cache_write_input_tokens?: number
  /** Includes `reasoning_output_tokens`. */
  readonly output_tokens?: number
  readonly reasoning_output_tokens?: number
}

/** Our tokens from Codex's usage: input without the cache reads and writes it includes. */
export function codexTokens(usage: CodexUsage): Tokens {
  const cacheRead = usage.cached_input_tokens ?? 0
  const cacheWrite = usage.cache_write_input_tokens ?? 0
  return {
    input: Math.max(0, (usage.input_tokens ?? 0) - cacheRead - cacheWrite),
    output: usage.output_tokens ?? 0,
    cacheRead,
    cacheWrite,
  }
}

/**
 * Item types that are tool calls (the model acting on the workspace or the
 * world); `agent_message`, `reasoning` and `error` items are not.
 */
export const CODEX_TOOL_ITEMS: ReadonlySet<string> = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search', 'todo_list', 'collab_tool_call', 'image_view'])

/** What a Codex JSON stream says. */
export interface CodexStream {
  /** From `thread.started`: names the session's rollout file. */
  readonly threadId: string | null
  /** Summed over `turn.completed` events; null when none came. */
  readonly usage: Tokens | null
  readonly turnCompleted: boolean
  /** The `turn.failed` error message, when the turn failed. */
  readonly failure: string | null
  /** `error` events' messages, in order (retries, reconnects, the failure). */
  readonly errors: readonly string[]
  /** The type of the last event (an `error` last means the API was still failing). */
  readonly lastEventType: string | null
  /** Distinct tool items (by item id). */
  readonly toolCalls: number
  /** Tool items before the first `file_change`; null when the session changed no file through Codex's patch tool. */
  readonly toolCallsBeforeFirstEdit: number | null
  /** Items the model produced (messages, reasoning, tool calls): zero means the model never answered. */
  readonly modelItems: number
  /** The final `agent_message` text. */
  readonly finalMessage: string | null
  /** Lines that were not JSON objects (Codex prints none on stdout; counted, not fatal). */
  readonly unparsedLines: number
}

interface CodexItem {
  readonly id?: string
  readonly type?: string
  readonly text?: string
}

interface CodexEvent {
  readonly type?: string
  readonly thread_id?: string
  readonly usage?: CodexUsage
  readonly error?: { readonly message?: string }
  readonly message?: string
  readonly item?: CodexItem
}

/** Reads a `codex exec --json` stream (its stdout, line by line). */
export function readCodexStream(lines: Iterable<string>): CodexStream {
  let threadId: string | null = null
  let usage: Tokens | null = null
  let turnCompleted = false
  let failure: string | null = null
  const errors: string[] = []
  const toolItems = new Set<string>()
  const modelItems = new Set<string>()
  let toolCallsBeforeFirstEdit: number | null = null
  let finalMessage: string | null = null

  const { unparsedLines, lastEventType } = eachJsonEvent<CodexEvent>(lines, (event) => {
    switch (event.type) {
      case 'thread.started':
        threadId = event.thread_id ?? threadId
        break
      case 'turn.completed': {
        turnCompleted = true
        const tokens = codexTokens(event.usage ?? {})
        usage =
          usage === null
            ? tokens
            : {
                input: usage.input + tokens.input,
                output: usage.output + tokens.output,
                cacheRead: usage.cacheRead + tokens.cacheRead,
                cacheWrite: usage.cacheWrite + tokens.cacheWrite,
              }
        break
      }
      case 'turn.failed':
        failure = event.error?.message ?? 'turn failed (no message)'
        break
      case 'error':
        errors.push(event.message ?? '')
        break
      case 'item.started':
      case 'item.updated':
      case 'item.completed': {
        const item = event.item
        if (item?.type === undefined || item.type === 'error') break
        const id = item.id ?? `${item.type}#${modelItems.size}`
        modelItems.add(id)
        if (item.type === 'agent_message' && event.type === 'item.completed') finalMessage = item.text ?? finalMessage
        if (!CODEX_TOOL_ITEMS.has(item.type) || toolItems.has(id)) break
        if (item.type === 'file_change' && toolCallsBeforeFirstEdit === null) toolCallsBeforeFirstEdit = toolItems.size
        toolItems.add(id)
        break
      }
      default:
        break
    }
  })
  return {
    threadId,
    usage,
    turnCompleted,
    failure,
    errors,
    lastEventType,
    toolCalls: toolItems.size,
    toolCallsBeforeFirstEdit,
    modelItems: modelItems.size,
    finalMessage,
    unparsedLines,
  }
}
