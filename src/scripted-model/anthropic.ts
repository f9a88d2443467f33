import path from 'node:path'
import type { ServerResponse } from 'node:http'
import { sendJson, type Exchange, type HandlerContext, type ProtocolHandler } from './server.ts'
import type { Action, Conversation, ConversationMessage, ConversationPart, ModelTurn, Usage } from './types.ts'
import { claudeSkillName } from './skills.ts'
import { CHARS_PER_TOKEN, estimateTokens, runPathCharacters, type CharacterCount, type PromptSize } from './usage.ts'
import { listFilesCommand, searchCommand, shellQuote } from './commands.ts'
import { sha256 } from '../shared/sha256.ts'

/**
 * The Anthropic Messages API (`POST /v1/messages`, streaming SSE or not, and
 * `POST /v1/messages/count_tokens`) as the Claude Code CLI uses it. The
 * policy's abstract actions become Claude Code tool calls: `Bash` to list and
 * search, `Read`, `Edit`, `Write`, and `Skill` to load a skill (the policy
 * reads its `.claude/skills/<name>/SKILL.md`; the CLI injects the body).
 */

interface ContentBlock {
  readonly type: string
  readonly text?: string
  readonly id?: string
  readonly name?: string
  readonly input?: unknown
  readonly tool_use_id?: string
  readonly content?: string | readonly ContentBlock[]
  readonly is_error?: boolean
  readonly cache_control?: unknown
}

interface MessagesRequest {
  readonly model?: string
  readonly system?: string | readonly ContentBlock[]
  readonly messages?: readonly { readonly role: string; readonly content: string | readonly ContentBlock[] }[]
  readonly tools?: readonly { readonly name?: string; readonly cache_control?: unknown }[]
  readonly stream?: boolean
  readonly output_config?: { readonly format?: { readonly type?: string; readonly schema?: unknown } }
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

function blocks(content: string | readonly ContentBlock[] | undefined): readonly ContentBlock[] {
  if (content === undefined) return []
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content
}

function resultText(content: string | readonly ContentBlock[] | undefined): string {
  return blocks(content)
    .map((block) => block.text ?? '')
    .join('\n')
}

/** The request in the policy's protocol-neutral form. */
export function toConversation(request: MessagesRequest): Conversation {
  const system = blocks(request.system)
    .map((block) => block.text ?? '')
    .join('\n')
  const messages: ConversationMessage[] = (request.messages ?? []).map((message) => {
    const parts: ConversationPart[] = []
    for (const block of blocks(message.content)) {
      if (block.type === 'text') parts.push({ type: 'text', text: block.text ?? '' })
      else if (block.type === 'tool_use') parts.push({ type: 'tool-call', id: block.id ?? '', name: block.name ?? '', input: block.input })
      else if (block.type === 'tool_result') {
        parts.push({ type: 'tool-result', callId: block.tool_use_id ?? '', text: resultText(block.content), isError: block.is_error === true })
      }
    }
    return { role: message.role === 'assistant' ? 'assistant' : 'user', parts }
  })
  const tools = (request.tools ?? []).map((tool) => tool.name ?? '')
  const schema = request.output_config?.format?.type === 'json_schema' ? request.output_config.format.schema : undefined
  return {
    system,
    messages,
    tools,
    kind: tools.length > 0 && schema === undefined ? 'agent' : 'auxiliary',
    ...(schema === undefined ? {} : { responseSchema: schema }),
  }
}

/**
 * The prompt's size as the API bills it: tools, then system, then messages;
 * everything up to the last block marked `cache_control` is cacheable.
 * `count` counts a piece's characters (see `runPathCharacters`).
 */
export function promptSize(request: MessagesRequest, count: CharacterCount = (text) => text.length): PromptSize {
  const pieces: { chars: number; marked: boolean }[] = []
  for (const tool of request.tools ?? []) pieces.push({ chars: count(JSON.stringify(tool)), marked: tool.cache_control !== undefined })
  for (const block of blocks(request.system)) pieces.push({ chars: count(block.text ?? ''), marked: block.cache_control !== undefined })
  for (const message of request.messages ?? []) {
    for (const block of blocks(message.content)) {
      const chars = count(block.type === 'text' ? (block.text ?? '') : JSON.stringify(block))
      pieces.push({ chars, marked: block.cache_control !== undefined })
    }
  }
  const lastMark = pieces.map((piece) => piece.marked).lastIndexOf(true)
  const sum = (list: typeof pieces) => list.reduce((total, piece) => total + piece.chars, 0)
  const cacheableChars = lastMark === -1 ? 0 : sum(pieces.slice(0, lastMark + 1))
  const uncachedChars = sum(pieces.slice(lastMark + 1))
  const key = sha256(JSON.stringify([request.system ?? '', (request.tools ?? []).map((tool) => tool.name)]))
  return {
    cacheKey: key,
    cacheableTokens: Math.ceil(cacheableChars / CHARS_PER_TOKEN),
    uncachedTokens: Math.max(1, Math.ceil(uncachedChars / CHARS_PER_TOKEN)),
  }
}

/** The workspace to make tool paths absolute with: the server's, else the one Claude Code states in its system prompt. */
function workspaceOf(conversation: Conversation, context: HandlerContext): string | undefined {
  return context.workspace ?? /Primary working directory: (\S+)/.exec(conversation.system)?.[1]
}

function absolute(file: string, workspace: string | undefined): string {
  return workspace === undefined ? file : path.join(workspace, file)
}

/** A Claude Code tool call for an abstract action (null when finishing). */
export function claudeToolCall(action: Action, tools: readonly string[], workspace: string | undefined): { name: string; input: Record<string, unknown> } | null {
  const has = (tool: string) => tools.includes(tool)
  switch (action.kind) {
    case 'finish':
      return null
    case 'list':
      return { name: 'Bash', input: { command: listFilesCommand(action.dir), description: 'List project files' } }
    case 'search':
      return {
        name: 'Bash',
        input: { command: searchCommand(action.pattern), description: `Search for ${action.pattern}` },
      }
    case 'read': {
      const skill = claudeSkillName(action.path)
      if (skill !== null && has('Skill')) return { name: 'Skill', input: { skill } }
      return has('Read') || !has('Bash')
        ? { name: 'Read', input: { file_path: absolute(action.path, workspace) } }
        : { name: 'Bash', input: { command: `cat -n ${shellQuote(action.path)}`, description: `Read ${action.path}` } }
    }
    case 'edit':
      return has('Edit') || !has('Write')
        ? { name: 'Edit', input: { file_path: absolute(action.path, workspace), old_string: action.oldString, new_string: action.newString, replace_all: false } }
        : { name: 'Write', input: { file_path: absolute(action.path, workspace), content: action.after } }
    case 'write':
      return { name: 'Write', input: { file_path: absolute(action.path, workspace), content: action.content } }
    case 'delete':
      return { name: 'Bash', input: { command: `rm -f -- ${shellQuote(action.path)}`, description: `Delete ${action.path}` } }
  }
}

interface ResponseMessage {
  id: string
  type: 'message'
  role: 'assistant'
  model: string
  content: Record<string, unknown>[]
  stop_reason: 'end_turn' | 'tool_use'
  stop_sequence: null
  usage: Record<string, number>
}

function wireUsage(usage: Usage): Record<string, number> {
  return {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    output_tokens: usage.outputTokens,
  }
}

/** Builds the whole response message for a turn, with usage metered. */
function responseMessage(request: MessagesRequest, conversation: Conversation, turn: ModelTurn, context: HandlerContext): ResponseMessage {
  const id = context.nextId('msg')
  const workspace = workspaceOf(conversation, context)
  const count = runPathCharacters({ workspace, home: context.home })
  const call = conversation.kind === 'agent' ? claudeToolCall(turn.action, conversation.tools, workspace) : null
  const content: Record<string, unknown>[] = []
  if (turn.text !== '') content.push({ type: 'text', text: turn.text })
  if (call !== null) content.push({ type: 'tool_use', id: context.nextId('toolu'), name: call.name, input: call.input })
  const outputTokens = estimateTokens(turn.text, count) + (call === null ? 0 : estimateTokens(JSON.stringify(call.input), count) + 10)
  const usage = context.meter.measure(promptSize(request, count), outputTokens)
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: context.model ?? request.model ?? 'claude-scripted',
    content,
    stop_reason: call === null ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: wireUsage(usage),
  }
}

function streamMessage(response: ServerResponse, message: ResponseMessage): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  const send = (event: string, data: unknown) => response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  send('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  })
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } })
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } })
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } })
    }
    send('content_block_stop', { type: 'content_block_stop', index })
  })
  send('message_delta', { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: message.usage })
  send('message_stop', { type: 'message_stop' })
  response.end()
}

/** The Anthropic Messages API handler. */
export const anthropicMessages: ProtocolHandler = {
  name: 'anthropic',
  route(method, pathname) {
    if (method !== 'POST') return null
    if (pathname === '/v1/messages') return 'model'
    if (pathname === '/v1/messages/count_tokens') return 'count-tokens'
    return null
  },
  handle(exchange: Exchange, context: HandlerContext) {
    const request = (exchange.body ?? {}) as MessagesRequest
    if (!Array.isArray(request.messages)) {
      return sendJson(exchange.response, 400, this.errorBody(400, 'messages: Field required'))
    }
    if (exchange.route === 'count-tokens') {
      const size = promptSize(request, runPathCharacters({ workspace: workspaceOf(toConversation(request), context), home: context.home }))
      return sendJson(exchange.response, 200, { input_tokens: size.cacheableTokens + size.uncachedTokens })
    }
    const conversation = toConversation(request)
    const message = responseMessage(request, conversation, context.turn(conversation), context)
    if (request.stream === true) streamMessage(exchange.response, message)
    else sendJson(exchange.response, 200, message)
  },
  errorBody(status, message) {
    return { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } }
  },
}
