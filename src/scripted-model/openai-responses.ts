import type { ServerResponse } from 'node:http'
import { sendJson, type Exchange, type HandlerContext, type ProtocolHandler } from './server.ts'
import type { Action, Conversation, ConversationMessage, ConversationPart, ModelTurn, Usage } from './types.ts'
import { CHARS_PER_TOKEN, estimateTokens, runPathCharacters, type CharacterCount, type PromptSize } from './usage.ts'
import { listFilesCommand, searchCommand, shellQuote } from './commands.ts'

/**
 * The OpenAI Responses API (`POST /v1/responses`, streaming SSE or not) as the
 * Codex CLI uses it through a `wire_api = "responses"` provider. The policy's
 * abstract actions become Codex tool calls: `exec_command` to list, search and
 * read, the freeform `apply_patch` tool to edit, add and delete files (Codex
 * reports those as `file_change` items).
 */

interface InputContent {
  readonly type?: string
  readonly text?: string
}

/** One item of a Responses request's `input` (only the fields the scripted model reads). */
interface InputItem {
  readonly type?: string
  readonly role?: string
  readonly content?: string | readonly InputContent[]
  readonly name?: string
  readonly call_id?: string
  readonly arguments?: string
  readonly input?: string
  readonly output?: unknown
}

interface ResponsesRequest {
  readonly model?: string
  readonly instructions?: string
  readonly input?: string | readonly InputItem[]
  readonly tools?: readonly { readonly type?: string; readonly name?: string }[]
  readonly stream?: boolean
  readonly prompt_cache_key?: string
  readonly text?: { readonly format?: { readonly type?: string; readonly schema?: unknown } }
}

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
}

function contentText(content: string | readonly InputContent[] | undefined): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  return content.map((part) => part.text ?? '').join('\n')
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (Array.isArray(output)) return output.map((part: InputContent) => part.text ?? '').join('\n')
  if (output !== null && typeof output === 'object' && 'content' in output) return String((output as { content: unknown }).content)
  return JSON.stringify(output ?? '')
}

function parseArguments(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '{}')
  } catch {
    return text
  }
}

function items(request: ResponsesRequest): readonly InputItem[] {
  if (request.input === undefined) return []
  return typeof request.input === 'string' ? [{ type: 'message', role: 'user', content: request.input }] : request.input
}

/**
 * The request in the policy's protocol-neutral form: `instructions` and the
 * developer/system messages are the system prompt; user messages (where Codex
 * puts `AGENTS.md` and the environment) and tool outputs are user turns;
 * assistant messages and tool calls are the model's.
 */
export function toConversation(request: ResponsesRequest): Conversation {
  const system: string[] = request.instructions === undefined ? [] : [request.instructions]
  const messages: ConversationMessage[] = []
  const push = (role: 'user' | 'assistant', part: ConversationPart) => {
    const last = messages.at(-1)
    if (last !== undefined && last.role === role) messages[messages.length - 1] = { role, parts: [...last.parts, part] }
    else messages.push({ role, parts: [part] })
  }
  for (const item of items(request)) {
    const type = item.type ?? 'message'
    if (type === 'message') {
      const text = contentText(item.content)
      if (item.role === 'developer' || item.role === 'system') system.push(text)
      else push(item.role === 'assistant' ? 'assistant' : 'user', { type: 'text', text })
    } else if (type === 'function_call') {
      push('assistant', { type: 'tool-call', id: item.call_id ?? '', name: item.name ?? '', input: parseArguments(item.arguments) })
    } else if (type === 'custom_tool_call') {
      push('assistant', { type: 'tool-call', id: item.call_id ?? '', name: item.name ?? '', input: item.input ?? '' })
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const text = outputText(item.output)
      push('user', { type: 'tool-result', callId: item.call_id ?? '', text, isError: /exited with code [1-9]|^error/i.test(text) })
    }
  }
  const tools = (request.tools ?? []).map((tool) => tool.name ?? tool.type ?? '')
  const schema = request.text?.format?.type === 'json_schema' ? request.text.format.schema : undefined
  return {
    system: system.join('\n'),
    messages,
    tools,
    kind: tools.length > 0 && schema === undefined ? 'agent' : 'auxiliary',
    ...(schema === undefined ? {} : { responseSchema: schema }),
  }
}

/**
 * The prompt's size as OpenAI bills it: caching is automatic, so everything
 * before the newest items (those after the model's last output) is a prefix
 * the previous request already sent and may be read from the cache.
 * `count` counts characters (see `runPathCharacters`).
 */
export function promptSize(request: ResponsesRequest, count: CharacterCount = (text) => text.length): PromptSize {
  const all = items(request)
  let lastModelItem = -1
  all.forEach((item, index) => {
    if (item.role === 'assistant' || item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'reasoning') lastModelItem = index
  })
  const chars = (list: readonly unknown[]) => list.reduce<number>((total, item) => total + count(JSON.stringify(item)), 0)
  const prefixChars = chars(request.tools ?? []) + count(request.instructions ?? '') + chars(all.slice(0, lastModelItem + 1))
  const newChars = chars(all.slice(lastModelItem + 1))
  return {
    cacheKey: request.prompt_cache_key ?? JSON.stringify([request.instructions ?? '', (request.tools ?? []).map((tool) => tool.name)]),
    cacheableTokens: Math.ceil(prefixChars / CHARS_PER_TOKEN),
    uncachedTokens: Math.max(1, Math.ceil(newChars / CHARS_PER_TOKEN)),
  }
}

function patchLines(prefix: '-' | '+', text: string): string[] {
  const lines = text.split('\n')
  if (lines.length > 1 && lines.at(-1) === '') lines.pop()
  return lines.map((line) => `${prefix}${line}`)
}

/** An `apply_patch` patch (Codex's own format) for an edit, a new file or a deletion. */
export function codexPatch(action: Extract<Action, { kind: 'edit' | 'write' | 'delete' }>): string {
  const body: string[] = []
  if (action.kind === 'edit') {
    body.push(`*** Update File: ${action.path}`, '@@', ...patchLines('-', action.oldString), ...(action.newString === '' ? [] : patchLines('+', action.newString)))
  } else if (action.kind === 'write') {
    body.push(`*** Add File: ${action.path}`, ...patchLines('+', action.content === '' ? '\n' : action.content))
  } else {
    body.push(`*** Delete File: ${action.path}`)
  }
  return ['*** Begin Patch', ...body, '*** End Patch', ''].join('\n')
}

/**
 * A Codex tool call for an abstract action (null when finishing). Edits use
 * the `apply_patch` tool when the request offers it (Codex offers it only for
 * models in its catalog); otherwise the patch goes through `exec_command`, as
 * `apply_patch` with the patch on stdin, which Codex intercepts.
 */
export function codexToolCall(
  action: Action,
  tools: readonly string[] = ['exec_command', 'apply_patch'],
): { type: 'function_call'; name: string; arguments: string } | { type: 'custom_tool_call'; name: string; input: string } | null {
  const exec = (cmd: string) => ({ type: 'function_call' as const, name: 'exec_command', arguments: JSON.stringify({ cmd }) })
  switch (action.kind) {
    case 'finish':
      return null
    case 'list':
      return exec(listFilesCommand(action.dir))
    case 'search':
      return exec(searchCommand(action.pattern))
    case 'read':
      return exec(`cat -n ${shellQuote(action.path)}`)
    case 'edit':
    case 'write':
    case 'delete':
      return tools.includes('apply_patch')
        ? { type: 'custom_tool_call', name: 'apply_patch', input: codexPatch(action) }
        : exec(`apply_patch <<'TASK_OUTCOME_PATCH'\n${codexPatch(action)}TASK_OUTCOME_PATCH`)
  }
}

/** Output tokens reported as hidden reasoning, on top of what the turn writes (they bill as output). */
function reasoningTokens(turn: ModelTurn, count: CharacterCount): number {
  return Math.ceil(estimateTokens(turn.text, count) / 2)
}

function wireUsage(usage: Usage, reasoning: number): Record<string, unknown> {
  // OpenAI bills no cache writes: the part of the prompt written to the cache is plain input.
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + usage.outputTokens,
  }
}

interface ResponseObject {
  id: string
  object: 'response'
  created_at: number
  status: 'completed'
  model: string
  output: Record<string, unknown>[]
  usage: Record<string, unknown>
}

/** Builds the whole response for a turn, with usage metered. */
function responseObject(request: ResponsesRequest, conversation: Conversation, turn: ModelTurn, context: HandlerContext): ResponseObject {
  const call = conversation.kind === 'agent' ? codexToolCall(turn.action, conversation.tools) : null
  const output: Record<string, unknown>[] = []
  if (turn.text !== '') {
    output.push({
      id: context.nextId('msg'),
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    })
  }
  if (call !== null) output.push({ id: context.nextId('fc'), call_id: context.nextId('call'), status: 'completed', ...call })
  // Codex states its working directory in the conversation (and its commands run there): count it as the stand-in.
  const count = runPathCharacters({ workspace: context.workspace, home: context.home })
  const reasoning = reasoningTokens(turn, count)
  const written = call === null ? 0 : estimateTokens(call.type === 'function_call' ? call.arguments : call.input, count) + 10
  const usage = context.meter.measure(promptSize(request, count), estimateTokens(turn.text, count) + written + reasoning)
  return {
    id: context.nextId('resp'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: context.model ?? request.model ?? 'gpt-scripted',
    output,
    usage: wireUsage(usage, Math.min(reasoning, usage.outputTokens)),
  }
}

function streamResponse(response: ServerResponse, result: ResponseObject): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  let sequence = 0
  const send = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`)
  const pending = { ...result, status: 'in_progress', output: [], usage: null }
  send('response.created', { response: pending })
  send('response.in_progress', { response: pending })
  result.output.forEach((item, index) => {
    if (item.type === 'message') {
      const text = (item.content as { text: string }[])[0]!.text
      send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } })
      send('response.content_part.added', { output_index: index, item_id: item.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } })
      send('response.output_text.delta', { output_index: index, item_id: item.id, content_index: 0, delta: text })
      send('response.output_text.done', { output_index: index, item_id: item.id, content_index: 0, text })
      send('response.content_part.done', { output_index: index, item_id: item.id, content_index: 0, part: { type: 'output_text', text, annotations: [] } })
    } else if (item.type === 'function_call') {
      send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } })
      send('response.function_call_arguments.delta', { output_index: index, item_id: item.id, delta: item.arguments })
      send('response.function_call_arguments.done', { output_index: index, item_id: item.id, arguments: item.arguments })
    } else {
      send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', input: '' } })
      send('response.custom_tool_call_input.delta', { output_index: index, item_id: item.id, delta: item.input })
      send('response.custom_tool_call_input.done', { output_index: index, item_id: item.id, input: item.input })
    }
    send('response.output_item.done', { output_index: index, item })
  })
  send('response.completed', { response: result })
  response.end()
}

/** The OpenAI Responses API handler (what Codex speaks). Serves `/v1/responses` and `/responses`. */
export const openaiResponses: ProtocolHandler = {
  name: 'openai-responses',
  route(method, pathname) {
    if (method === 'POST' && (pathname === '/v1/responses' || pathname === '/responses')) return 'model'
    return null
  },
  handle(exchange: Exchange, context: HandlerContext) {
    const request = (exchange.body ?? {}) as ResponsesRequest
    if (request.input === undefined) return sendJson(exchange.response, 400, this.errorBody(400, "Missing required parameter: 'input'."))
    const conversation = toConversation(request)
    const result = responseObject(request, conversation, context.turn(conversation), context)
    if (request.stream === true) streamResponse(exchange.response, result)
    else sendJson(exchange.response, 200, result)
  },
  errorBody(status, message) {
    const kind = ERROR_TYPES[status] ?? { type: 'server_error', code: null }
    return { error: { message, type: kind.type, param: null, code: kind.code } }
  },
}
