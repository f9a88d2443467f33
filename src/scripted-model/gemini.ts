import path from 'node:path'
import type { ServerResponse } from 'node:http'
import { sendJson, type Exchange, type HandlerContext, type ProtocolHandler } from './server.ts'
import type { Action, Conversation, ConversationMessage, ConversationPart, ModelTurn, Usage } from './types.ts'
import { CHARS_PER_TOKEN, estimateTokens, runPathCharacters, type CharacterCount, type PromptSize } from './usage.ts'
import { listFilesCommand, searchCommand, shellQuote } from './commands.ts'

/**
 * The Gemini API (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`,
 * `:generateContent`, `:countTokens`) as the Gemini CLI uses it with
 * `GOOGLE_GEMINI_BASE_URL`. The policy's abstract actions become Gemini CLI
 * tool calls: `list_directory`, `grep_search`, `read_file`, `replace`,
 * `write_file`, and `run_shell_command` to delete.
 */

interface Part {
  readonly text?: string
  readonly thought?: boolean
  readonly functionCall?: { readonly name?: string; readonly args?: unknown; readonly id?: string }
  readonly functionResponse?: { readonly name?: string; readonly response?: unknown; readonly id?: string }
}

interface Content {
  readonly role?: string
  readonly parts?: readonly Part[]
}

interface GenerateContentRequest {
  readonly contents?: readonly Content[]
  readonly systemInstruction?: Content | string
  readonly tools?: readonly { readonly functionDeclarations?: readonly { readonly name?: string }[] }[]
  readonly generationConfig?: { readonly responseJsonSchema?: unknown; readonly responseSchema?: unknown; readonly responseMimeType?: string }
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

const ROUTE = /^\/(?:v1beta|v1alpha|v1)\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/

/** The Gemini CLI's own opening block: the date, the OS and a listing of every workspace file. */
const SESSION_CONTEXT = /^\s*<session_context>/

function systemText(system: Content | string | undefined): string {
  if (system === undefined) return ''
  if (typeof system === 'string') return system
  return (system.parts ?? []).map((part) => part.text ?? '').join('\n')
}

function responseText(response: unknown): string {
  if (response !== null && typeof response === 'object') {
    const record = response as Record<string, unknown>
    const value = record.output ?? record.error ?? record.content
    if (typeof value === 'string') return value
  }
  return JSON.stringify(response ?? '')
}

/**
 * The request in the policy's protocol-neutral form. The CLI's
 * `<session_context>` block is left out of what the policy reads: it lists
 * every file of the workspace, so it names the files to change without saying
 * anything about them (a context file or hook naming one still counts).
 */
export function toConversation(request: GenerateContentRequest): Conversation {
  const messages: ConversationMessage[] = []
  for (const content of request.contents ?? []) {
    const role = content.role === 'model' ? 'assistant' : 'user'
    const parts: ConversationPart[] = []
    ;(content.parts ?? []).forEach((part, index) => {
      if (part.functionCall !== undefined) {
        parts.push({
          type: 'tool-call',
          id: part.functionCall.id ?? `${part.functionCall.name ?? 'call'}#${index}`,
          name: part.functionCall.name ?? '',
          input: part.functionCall.args ?? {},
        })
      } else if (part.functionResponse !== undefined) {
        const text = responseText(part.functionResponse.response)
        const isError = part.functionResponse.response !== null && typeof part.functionResponse.response === 'object' && 'error' in part.functionResponse.response
        parts.push({ type: 'tool-result', callId: part.functionResponse.id ?? part.functionResponse.name ?? '', text, isError })
      } else if (typeof part.text === 'string' && part.thought !== true && !SESSION_CONTEXT.test(part.text)) {
        parts.push({ type: 'text', text: part.text })
      }
    })
    const last = messages.at(-1)
    if (last !== undefined && last.role === role) messages[messages.length - 1] = { role, parts: [...last.parts, ...parts] }
    else messages.push({ role, parts })
  }
  const tools = (request.tools ?? []).flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name ?? ''))
  const schema = request.generationConfig?.responseJsonSchema ?? request.generationConfig?.responseSchema
  return {
    system: systemText(request.systemInstruction),
    messages,
    tools,
    kind: tools.length > 0 && schema === undefined ? 'agent' : 'auxiliary',
    ...(schema === undefined ? {} : { responseSchema: schema }),
  }
}

/**
 * The prompt's size as Gemini bills it: implicit caching, so everything up to
 * the model's last turn was sent before and may be read from the cache; the
 * newest user turn is plain input. `count` counts characters (see `runPathCharacters`).
 */
export function promptSize(request: GenerateContentRequest, count: CharacterCount = (text) => text.length): PromptSize {
  const contents = request.contents ?? []
  const lastModel = contents.map((content) => content.role).lastIndexOf('model')
  const chars = (list: readonly unknown[]) => list.reduce<number>((total, item) => total + count(JSON.stringify(item)), 0)
  const prefixChars = chars(request.tools ?? []) + count(systemText(request.systemInstruction)) + chars(contents.slice(0, lastModel + 1))
  const newChars = chars(contents.slice(lastModel + 1))
  return {
    cacheKey: JSON.stringify([systemText(request.systemInstruction).slice(0, 2000), toConversation(request).tools]),
    cacheableTokens: Math.ceil(prefixChars / CHARS_PER_TOKEN),
    uncachedTokens: Math.max(1, Math.ceil(newChars / CHARS_PER_TOKEN)),
  }
}

/** The workspace to make tool paths absolute with: the server's, else the one the CLI's session context names. */
function workspaceOf(request: GenerateContentRequest, context: HandlerContext): string | undefined {
  if (context.workspace !== undefined) return context.workspace
  for (const content of request.contents ?? []) {
    for (const part of content.parts ?? []) {
      const match = /Workspace Directories:\*\*\s*\n\s*-\s*(\S+)/.exec(part.text ?? '')
      if (match !== null) return match[1]
    }
  }
  return undefined
}

function absolute(file: string, workspace: string | undefined): string {
  return workspace === undefined ? file : path.join(workspace, file)
}

/** A Gemini CLI tool call for an abstract action (null when finishing). */
export function geminiToolCall(action: Action, tools: readonly string[], workspace: string | undefined): { name: string; args: Record<string, unknown> } | null {
  const has = (tool: string) => tools.includes(tool)
  const shell = (command: string, description: string) => ({ name: 'run_shell_command', args: { command, description } })
  switch (action.kind) {
    case 'finish':
      return null
    case 'list':
      return has('list_directory')
        ? { name: 'list_directory', args: { dir_path: absolute(action.dir, workspace) } }
        : shell(listFilesCommand(action.dir, { includeNodeModules: true }), 'List project files')
    case 'search':
      return has('grep_search')
        ? { name: 'grep_search', args: { pattern: action.pattern, ...(workspace === undefined ? {} : { dir_path: workspace }) } }
        : shell(searchCommand(action.pattern, { includeNodeModules: true }), `Search for ${action.pattern}`)
    case 'read':
      return { name: 'read_file', args: { file_path: absolute(action.path, workspace) } }
    case 'edit':
      return has('replace') || !has('write_file')
        ? {
            name: 'replace',
            args: { file_path: absolute(action.path, workspace), instruction: `Fix the problem in ${action.path}`, old_string: action.oldString, new_string: action.newString },
          }
        : { name: 'write_file', args: { file_path: absolute(action.path, workspace), content: action.after } }
    case 'write':
      return { name: 'write_file', args: { file_path: absolute(action.path, workspace), content: action.content } }
    case 'delete':
      return shell(`rm -f -- ${shellQuote(action.path)}`, `Delete ${action.path}`)
  }
}

interface Schema {
  readonly type?: string | readonly string[]
  readonly enum?: readonly unknown[]
  readonly properties?: Record<string, Schema>
  readonly items?: Schema
}

/**
 * A value matching a JSON schema (or Gemini's OpenAPI-style `responseSchema`),
 * for the CLI's side requests that ask for JSON. An enum offering `user` gets
 * it: the CLI's "who speaks next" check must not keep the model talking.
 */
export function valueFor(schema: Schema | undefined): unknown {
  if (schema === undefined) return 'Scripted model session'
  if (schema.enum !== undefined && schema.enum.length > 0) return schema.enum.includes('user') ? 'user' : schema.enum[0]
  const type = String(Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? (schema.properties === undefined ? 'string' : 'object'))).toLowerCase()
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, inner]) => [key, valueFor(inner)]))
    case 'array':
      return []
    case 'boolean':
      return false
    case 'number':
    case 'integer':
      return 0
    default:
      return 'Scripted model session'
  }
}

/** Thinking tokens reported for a turn (Gemini bills them at the output rate, apart from the visible output). */
function thoughtTokens(turn: ModelTurn, count: CharacterCount): number {
  return Math.ceil(estimateTokens(turn.text, count) / 2)
}

function usageMetadata(usage: Usage, candidates: number, thoughts: number): Record<string, number> {
  // Implicit caching bills no cache writes: the part written to the cache is plain input.
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    thoughtsTokenCount: thoughts,
    ...(usage.cacheReadTokens > 0 ? { cachedContentTokenCount: usage.cacheReadTokens } : {}),
    totalTokenCount: prompt + candidates + thoughts,
  }
}

/** Builds the whole response for a request, with usage metered. */
function generateResponse(request: GenerateContentRequest, model: string, context: HandlerContext): Record<string, unknown> {
  const conversation = toConversation(request)
  const turn: ModelTurn =
    conversation.kind === 'auxiliary' && conversation.responseSchema !== undefined
      ? { text: JSON.stringify(valueFor(conversation.responseSchema as Schema)), action: { kind: 'finish' } }
      : context.turn(conversation)
  const workspace = workspaceOf(request, context)
  const count = runPathCharacters({ workspace, home: context.home })
  const call = conversation.kind === 'agent' ? geminiToolCall(turn.action, conversation.tools, workspace) : null
  const parts: Record<string, unknown>[] = []
  if (turn.text !== '') parts.push({ text: turn.text })
  if (call !== null) parts.push({ functionCall: call })
  const candidates = estimateTokens(turn.text, count) + (call === null ? 0 : estimateTokens(JSON.stringify(call.args), count) + 10)
  const thoughts = conversation.kind === 'agent' ? thoughtTokens(turn, count) : 0
  const usage = context.meter.measure(promptSize(request, count), candidates + thoughts)
  // The meter's output is what is billed (zero when the server is told to report no usage).
  const billedThoughts = Math.min(thoughts, usage.outputTokens)
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usageMetadata(usage, usage.outputTokens - billedThoughts, billedThoughts),
    modelVersion: context.model ?? model,
    responseId: context.nextId('resp'),
  }
}

function streamResponse(response: ServerResponse, body: Record<string, unknown>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  response.write(`data: ${JSON.stringify(body)}\r\n\r\n`)
  response.end()
}

/** The Gemini API handler (what the Gemini CLI speaks). */
export const geminiApi: ProtocolHandler = {
  name: 'gemini',
  route(method, pathname) {
    const match = method === 'POST' ? ROUTE.exec(pathname) : null
    if (match === null) return null
    return match[2] === 'countTokens' ? 'count-tokens' : 'model'
  },
  handle(exchange: Exchange, context: HandlerContext) {
    const [, model = 'gemini-scripted', method] = ROUTE.exec(exchange.pathname) ?? []
    const body = (exchange.body ?? {}) as GenerateContentRequest & { generateContentRequest?: GenerateContentRequest }
    if (method === 'countTokens') {
      const counted = body.generateContentRequest ?? body
      const size = promptSize(counted, runPathCharacters({ workspace: workspaceOf(counted, context), home: context.home }))
      return sendJson(exchange.response, 200, { totalTokens: size.cacheableTokens + size.uncachedTokens })
    }
    if (!Array.isArray(body.contents)) return sendJson(exchange.response, 400, this.errorBody(400, '* GenerateContentRequest.contents: contents is not specified'))
    const result = generateResponse(body, model, context)
    if (method === 'streamGenerateContent') streamResponse(exchange.response, result)
    else sendJson(exchange.response, 200, result)
  },
  errorBody(status, message) {
    return { error: { code: status, message, status: STATUS_NAMES[status] ?? (status >= 500 ? 'UNAVAILABLE' : 'FAILED_PRECONDITION') } }
  },
}
