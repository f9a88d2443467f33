import type { Tokens } from '../usage.ts'

/**
 * Reading the Cursor runner's output (`runner.mjs`): one `{"tag", "obj"}`
 * line per SDK event, the format of the captured `cursor-sdk-*.jsonl`.
 * Tokens come from the run's cumulative `usage` (`wait()`), else the sum of
 * the `turn-ended` updates' usage; the SDK reports no cost.
 */

/** Tool calls that change files: the first ends "tool calls before the first edit". */
export const CURSOR_EDIT_TOOLS: ReadonlySet<string> = new Set(['edit', 'write', 'delete'])

/** An error the SDK threw or rejected with. */
export interface CursorError {
  readonly tag: string
  readonly name: string | null
  readonly message: string
  readonly code: string | null
  readonly isRetryable: boolean | null
}

/** The SDK's token usage (inputTokens excludes cache reads and writes; reasoning is part of output). */
interface CursorUsage {
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
}

/** What the runner's output says. */
export interface CursorStream {
  readonly agentId: string | null
  /** `wait()`'s `status`: `finished`, `error` or `cancelled`; null when the run never ended. */
  readonly status: string | null
  /** `wait()`'s `error.message` when the run failed. */
  readonly runError: string | null
  readonly model: string | null
  readonly tokens: Tokens | null
  /** Model steps (`step-started` ids), else `turn-ended` updates; null when neither came. */
  readonly turns: number | null
  readonly toolCalls: number
  readonly toolCallsBeforeFirstEdit: number | null
  /** Text, thinking and tool-call updates: zero means the model never answered. */
  readonly modelOutputs: number
  readonly errors: readonly CursorError[]
  readonly lastTag: string | null
  readonly unparsedLines: number
}

function tokensOf(usage: CursorUsage): Tokens {
  return { input: usage.inputTokens ?? 0, output: usage.outputTokens ?? 0, cacheRead: usage.cacheReadTokens ?? 0, cacheWrite: usage.cacheWriteTokens ?? 0 }
}

function add(a: Tokens | null, b: Tokens): Tokens {
  return a === null ? b : { input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite }
}

type Json = Record<string, unknown>

function asObject(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/** Reads the runner's output, line by line. */
export function readCursorStream(lines: Iterable<string>): CursorStream {
  let agentId: string | null = null
  let status: string | null = null
  let runError: string | null = null
  let model: string | null = null
  let waitUsage: Tokens | null = null
  let turnUsage: Tokens | null = null
  let turnsEnded = 0
  const steps = new Set<string>()
  const tools = new Set<string>()
  let toolCallsBeforeFirstEdit: number | null = null
  let modelOutputs = 0
  const errors: CursorError[] = []
  let lastTag: string | null = null
  let unparsedLines = 0

  for (const line of lines) {
    if (line.trim() === '') continue
    let event: Json
    try {
      event = asObject(JSON.parse(line))
    } catch {
      unparsedLines++
      continue
    }
    const tag = text(event.tag)
    const obj = asObject(event.obj)
    if (tag === null) {
      unparsedLines++
      continue
    }
    lastTag = tag
    switch (tag) {
      case 'created':
        agentId = text(obj.agentId) ?? agentId
        model = text(asObject(obj.model).id) ?? model
        break
      case 'wait':
        status = text(obj.status)
        runError = text(asObject(obj.error).message)
        model = text(asObject(obj.model).id) ?? model
        if (obj.usage !== undefined) waitUsage = tokensOf(asObject(obj.usage) as CursorUsage)
        break
      case 'delta': {
        const type = text(obj.type)
        if (type === 'turn-ended') {
          turnsEnded++
          if (obj.usage !== undefined) turnUsage = add(turnUsage, tokensOf(asObject(obj.usage) as CursorUsage))
        } else if (type === 'step-started') {
          steps.add(String(obj.stepId))
        } else if (type === 'text-delta' || type === 'thinking-delta') {
          modelOutputs++
        } else if (type === 'tool-call-started') {
          modelOutputs++
          const id = text(obj.callId) ?? `call#${tools.size}`
          if (tools.has(id)) break
          if (toolCallsBeforeFirstEdit === null && CURSOR_EDIT_TOOLS.has(text(asObject(obj.toolCall).type) ?? '')) toolCallsBeforeFirstEdit = tools.size
          tools.add(id)
        }
        break
      }
      case 'error':
      case 'unhandledRejection':
      case 'uncaughtException':
        errors.push({
          tag,
          name: text(obj.name) ?? text(obj.ctor),
          message: text(obj.message) ?? '',
          code: text(obj.code),
          isRetryable: typeof obj.isRetryable === 'boolean' ? obj.isRetryable : null,
        })
        break
      default:
        break
    }
  }
  return {
    agentId,
    status,
    runError,
    model,
    tokens: waitUsage ?? turnUsage,
    turns: steps.size > 0 ? steps.size : turnsEnded > 0 ? turnsEnded : null,
    toolCalls: tools.size,
    toolCallsBeforeFirstEdit,
    modelOutputs,
    errors,
    lastTag,
    unparsedLines,
  }
}
