import path from 'node:path'
import type { ServerResponse } from 'node:http'
import { cursorSchemas, type CursorMessage, type CursorSchemas } from './cursor-schemas.ts'
import { sendJson, type Exchange, type HandlerContext, type ProtocolHandler } from './server.ts'
import type { Action, Conversation, ConversationMessage, ConversationPart, Usage } from './types.ts'
import { CHARS_PER_TOKEN, estimateTokens, runPathCharacters } from './usage.ts'

/**
 * Cursor's agent backend, as `@cursor/sdk`'s local agent talks to it
 * (`CURSOR_BACKEND_URL`). In Cursor the model runs on the backend and the
 * tools run in the SDK: the backend streams `agent.v1.AgentServerMessage`s
 * (interaction updates for the UI, and `exec_server_message`s asking the SDK
 * to list, grep, read, write or delete), and the SDK answers each exec with an
 * `agent.v1.AgentClientMessage`. The SDK carries that bidirectional stream
 * over two Connect-RPC calls: `agent.v1.AgentService/RunSSE` (server
 * streaming, opened with the run's request id) and
 * `aiserver.v1.BidiService/BidiAppend` (one unary call per client message,
 * numbered, possibly out of order). Messages are the SDK's own protobuf types
 * (`cursor-schemas.ts`).
 *
 * A session here: the SDK's first message is the `run_request` (the user's
 * text); the server asks for the request context (the workspace's rules and
 * `AGENTS.md`, which become the system prompt the policy sees), then plays
 * the policy's turns: each model step is `step_started`, its text, a tool call
 * (`tool_call_started`, the exec, `tool_call_completed`) and `step_completed`;
 * finishing writes the final text and `turn_ended` with the run's tokens, and
 * closes the stream. The front door (API-key exchange, model list, and the
 * account settings the SDK reads before a run) is answered too. Injected
 * faults hit the model calls: the key exchange (which the SDK repeats before
 * most calls), the model list and RunSSE.
 */

/** The Cursor model ids the scripted backend lists (the SDK refuses a model its backend does not list), unless the server was given one. */
export const SCRIPTED_CURSOR_MODELS: readonly string[] = ['gpt-5', 'claude-sonnet-4-5', 'composer-1']

/** The tools the scripted Cursor model acts with (what `Conversation.tools` names). */
const TOOLS = ['ls', 'grep', 'read', 'edit', 'delete'] as const

/**
 * Account and configuration calls the SDK makes before a run, whose empty
 * message means "no team, no privacy setting, the default configuration, no
 * telemetry wanted": answered with an empty protobuf message.
 */
const EMPTY_ANSWERS: ReadonlySet<string> = new Set([
  '/aiserver.v1.DashboardService/GetUserPrivacyMode',
  '/aiserver.v1.DashboardService/GetTeamAdminSettingsOrEmptyIfNotInTeam',
  '/aiserver.v1.DashboardService/GetTeamReposOrEmptyIfNotInTeam',
  '/aiserver.v1.ServerConfigService/GetServerConfig',
  '/aiserver.v1.AnalyticsService/TrackEvents',
])

const RUN_SSE = '/agent.v1.AgentService/RunSSE'
const BIDI_APPEND = '/aiserver.v1.BidiService/BidiAppend'

/** Connect's error codes for the HTTP statuses faults inject. */
function connectCode(status: number): string {
  if (status === 401) return 'unauthenticated'
  if (status === 403) return 'permission_denied'
  if (status === 404) return 'unimplemented'
  if (status === 429) return 'resource_exhausted'
  if (status === 503 || status === 529) return 'unavailable'
  if (status >= 400 && status < 500) return 'invalid_argument'
  return 'internal'
}

/** One Connect envelope: a flags byte, the length, the message. */
export function connectEnvelope(bytes: Uint8Array, flags = 0): Buffer {
  const head = Buffer.alloc(5)
  head[0] = flags
  head.writeUInt32BE(bytes.length, 1)
  return Buffer.concat([head, bytes])
}

/** The message of a one-message Connect streaming request body. */
export function firstEnvelope(body: Buffer): Uint8Array {
  if (body.length < 5) throw new Error('a Connect streaming request needs an envelope')
  if ((body[0]! & 1) !== 0) throw new Error('compressed Connect envelopes are not supported')
  const length = body.readUInt32BE(1)
  return body.subarray(5, 5 + length)
}

type Json = Record<string, unknown>
type Oneof = { readonly case: string | undefined; readonly value?: unknown }

function oneof(message: unknown, field = 'message'): Oneof {
  return ((message as Json | undefined)?.[field] as Oneof | undefined) ?? { case: undefined }
}

/** What the SDK answered to one exec: the result's oneof (`readResult`, …), or the error it threw. */
export type ExecAnswer = { readonly kind: 'result'; readonly case: string; readonly value: CursorMessage } | { readonly kind: 'throw'; readonly error: string }

/** The tool call of one step, as the Cursor UI messages (`ToolCall`) and the exec that carries it out. */
interface CursorTool {
  readonly toolCase: string
  readonly args: Json
  readonly execCase: string
  readonly execArgs: Json
  /** The conversation's view of the call (name and input). */
  readonly name: string
  readonly input: unknown
}

/** The Cursor tool and exec for an action (paths absolute in `workspace`). */
export function cursorTool(action: Exclude<Action, { kind: 'finish' }>, workspace: string, callId: string): CursorTool {
  const abs = (relative: string) => path.resolve(workspace, relative)
  switch (action.kind) {
    case 'list':
      return {
        toolCase: 'lsToolCall',
        args: { path: abs(action.dir) },
        execCase: 'lsArgs',
        execArgs: { path: abs(action.dir), toolCallId: callId },
        name: 'ls',
        input: { path: action.dir },
      }
    case 'search':
      return {
        toolCase: 'grepToolCall',
        args: { pattern: action.pattern, path: workspace, toolCallId: callId },
        execCase: 'grepArgs',
        execArgs: { pattern: action.pattern, path: workspace, outputMode: 'files_with_matches', toolCallId: callId },
        name: 'grep',
        input: { pattern: action.pattern },
      }
    case 'read':
      return {
        toolCase: 'readToolCall',
        args: { path: abs(action.path) },
        execCase: 'readArgs',
        execArgs: { path: abs(action.path), toolCallId: callId },
        name: 'read',
        input: { path: action.path },
      }
    case 'edit':
    case 'write': {
      const content = action.kind === 'edit' ? action.after : action.content
      return {
        toolCase: 'editToolCall',
        args: { path: abs(action.path) },
        execCase: 'writeArgs',
        execArgs: { path: abs(action.path), fileText: content, toolCallId: callId },
        name: 'edit',
        input: action.kind === 'edit' ? { path: action.path, old_string: action.oldString, new_string: action.newString } : { path: action.path, contents: content },
      }
    }
    case 'delete':
      return {
        toolCase: 'deleteToolCall',
        args: { path: abs(action.path), toolCallId: callId },
        execCase: 'deleteArgs',
        execArgs: { path: abs(action.path), toolCallId: callId },
        name: 'delete',
        input: { path: action.path },
      }
  }
}

interface LsNode {
  readonly absPath?: string
  readonly childrenDirs?: readonly LsNode[]
  readonly childrenFiles?: readonly { readonly name?: string }[]
}

/** An `ls` tree as sorted workspace-relative file paths, `.git` left out (its object names change with every commit). */
function listedFiles(root: LsNode | undefined): string[] {
  const files: string[] = []
  const walk = (node: LsNode, prefix: string) => {
    for (const file of node.childrenFiles ?? []) files.push(`${prefix}${file.name ?? ''}`)
    for (const dir of node.childrenDirs ?? []) {
      const name = path.basename(dir.absPath ?? '')
      if (name !== '.git') walk(dir, `${prefix}${name}/`)
    }
  }
  if (root !== undefined) walk(root, '')
  return files.sort()
}

/** The text the model is shown for an exec's answer, and whether it failed. */
export function answerText(answer: ExecAnswer): { readonly text: string; readonly isError: boolean } {
  if (answer.kind === 'throw') return { text: `error: ${answer.error}`, isError: true }
  const result = oneof(answer.value, 'result')
  const value = result.value as Json | undefined
  if (result.case !== 'success') return { text: `error: ${JSON.stringify((value as CursorMessage | undefined)?.toJson?.() ?? value ?? {})}`, isError: true }
  if (answer.case === 'readResult') return { text: String(oneof(value, 'output').value ?? ''), isError: false }
  if (answer.case === 'lsResult') return { text: listedFiles(value?.directoryTreeRoot as LsNode | undefined).join('\n'), isError: false }
  return { text: JSON.stringify((value as CursorMessage).toJson()), isError: false }
}

/** The system prompt Cursor's backend would build from the SDK's request context: each rule's text (`.cursor/rules`, `AGENTS.md`). */
export function systemPrompt(requestContext: unknown): string {
  const rules = ((requestContext as Json | undefined)?.rules as readonly Json[] | undefined) ?? []
  return rules.map((rule) => String(rule.content ?? '')).join('\n\n')
}

/** One run of the SDK's agent: the RunSSE stream, the appended client messages in order, and the conversation so far. */
class CursorSession {
  readonly #schemas: CursorSchemas
  readonly #context: HandlerContext
  #response: ServerResponse | undefined
  readonly #pending: Buffer[] = []
  readonly #appends = new Map<bigint, Uint8Array>()
  #nextSeqno = 0n
  #execId = 0
  readonly #waiting = new Map<number, (answer: ExecAnswer) => void>()
  #started = false
  /** The stream's last envelope, once the session ended (written when the stream opens, if it had not yet). */
  #trailer: Buffer | undefined
  #closed = false

  constructor(schemas: CursorSchemas, context: HandlerContext) {
    this.#schemas = schemas
    this.#context = context
  }

  /** The RunSSE response the server messages go to (messages sent before it opened are queued). */
  attach(response: ServerResponse): void {
    this.#response = response
    response.writeHead(200, { 'content-type': 'application/connect+proto' })
    response.flushHeaders()
    for (const chunk of this.#pending.splice(0)) response.write(chunk)
    response.on('close', () => this.#close())
    if (this.#trailer !== undefined) response.end(this.#trailer)
  }

  /** One BidiAppend: queued by its number, handled in order. */
  append(seqno: bigint, bytes: Uint8Array): void {
    this.#appends.set(seqno, bytes)
    for (let next = this.#appends.get(this.#nextSeqno); next !== undefined; next = this.#appends.get(this.#nextSeqno)) {
      this.#appends.delete(this.#nextSeqno)
      this.#nextSeqno++
      this.#receive(this.#schemas.type('agent.v1.AgentClientMessage').fromBinary(next))
    }
  }

  #receive(message: CursorMessage): void {
    const { case: kind, value } = oneof(message)
    if (kind === 'runRequest' && !this.#started) {
      this.#started = true
      void this.#play(value as Json).catch((error: unknown) => this.#fail(error))
    } else if (kind === 'execClientMessage') {
      const exec = value as Json
      const result = oneof(exec)
      this.#waiting.get(Number(exec.id))?.({ kind: 'result', case: result.case ?? 'none', value: result.value as CursorMessage })
      this.#waiting.delete(Number(exec.id))
    } else if (kind === 'execClientControlMessage') {
      const control = oneof(value)
      if (control.case === 'throw') {
        const thrown = control.value as Json
        this.#waiting.get(Number(thrown.id))?.({ kind: 'throw', error: String(thrown.error ?? 'the SDK threw') })
        this.#waiting.delete(Number(thrown.id))
      }
    }
    // Heartbeats, stream closes of answered execs and KV messages need no answer.
  }

  #send(message: Json): void {
    if (this.#closed || this.#trailer !== undefined) return
    const chunk = connectEnvelope(new (this.#schemas.type('agent.v1.AgentServerMessage'))(message).toBinary())
    if (this.#response === undefined) this.#pending.push(chunk)
    else this.#response.write(chunk)
  }

  #update(kind: string, value: Json): void {
    this.#send({ message: { case: 'interactionUpdate', value: { message: { case: kind, value } } } })
  }

  #exec(kind: string, args: Json): Promise<ExecAnswer> {
    const id = ++this.#execId
    const answer = new Promise<ExecAnswer>((resolve) => this.#waiting.set(id, resolve))
    this.#send({ message: { case: 'execServerMessage', value: { id, execId: `exec_scripted_${id}`, message: { case: kind, value: args } } } })
    return answer
  }

  #end(error?: { code: string; message: string }): void {
    if (this.#closed || this.#trailer !== undefined) return
    this.#trailer = connectEnvelope(Buffer.from(JSON.stringify(error === undefined ? {} : { error })), 2)
    this.#response?.end(this.#trailer)
  }

  #fail(error: unknown): void {
    this.#end({ code: 'internal', message: `scripted model server: ${(error as Error).message}` })
  }

  #close(): void {
    this.#closed = true
    for (const resolve of this.#waiting.values()) resolve({ kind: 'throw', error: 'the stream closed' })
    this.#waiting.clear()
  }

  async #play(run: Json): Promise<void> {
    const userText = String(((oneof(run.action, 'action').value as Json | undefined)?.userMessage as Json | undefined)?.text ?? '')
    const cacheKey = String(run.conversationId ?? 'cursor')
    const contextAnswer = await this.#exec('requestContextArgs', {})
    const requestContext =
      contextAnswer.kind === 'result' && contextAnswer.case === 'requestContextResult'
        ? (oneof(contextAnswer.value, 'result').value as Json | undefined)?.requestContext
        : undefined
    const workspacePaths = ((requestContext as Json | undefined)?.env as Json | undefined)?.workspacePaths as readonly string[] | undefined
    const workspace = this.#context.workspace ?? workspacePaths?.[0] ?? process.cwd()
    const system = systemPrompt(requestContext)
    const count = runPathCharacters({ workspace, home: this.#context.home })
    const messages: ConversationMessage[] = [{ role: 'user', parts: [{ type: 'text', text: userText }] }]
    let total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
    let newChars = count(system) + count(userText)
    for (let step = 1; !this.#closed && this.#trailer === undefined; step++) {
      const conversation: Conversation = { system, messages, tools: [...TOOLS], kind: 'agent' }
      const turn = this.#context.turn(conversation)
      const startedAt = Date.now()
      this.#update('stepStarted', { stepId: BigInt(step) })
      if (turn.text !== '') this.#update('textDelta', { text: turn.text })
      const action = turn.action
      const callId = this.#context.nextId('call')
      const tool = action.kind === 'finish' ? undefined : cursorTool(action, workspace, callId)
      const promptChars = count(JSON.stringify(messages)) + count(system)
      const usage = this.#context.meter.measure(
        { cacheKey, cacheableTokens: Math.ceil((promptChars - newChars) / CHARS_PER_TOKEN), uncachedTokens: Math.max(1, Math.ceil(newChars / CHARS_PER_TOKEN)) },
        estimateTokens(turn.text, count) + (tool === undefined ? 0 : estimateTokens(JSON.stringify(tool.input), count) + 10),
      )
      total = {
        inputTokens: total.inputTokens + usage.inputTokens,
        outputTokens: total.outputTokens + usage.outputTokens,
        cacheReadTokens: total.cacheReadTokens + usage.cacheReadTokens,
        cacheWriteTokens: total.cacheWriteTokens + usage.cacheWriteTokens,
      }
      if (tool === undefined) {
        this.#update('stepCompleted', { stepId: BigInt(step), stepDurationMs: BigInt(Date.now() - startedAt) })
        this.#update('turnEnded', {
          inputTokens: BigInt(total.inputTokens),
          outputTokens: BigInt(total.outputTokens),
          cacheReadTokens: BigInt(total.cacheReadTokens),
          cacheWriteTokens: BigInt(total.cacheWriteTokens),
        })
        return this.#end()
      }
      const modelCallId = this.#context.nextId('model_call')
      const toolCall = (result?: unknown) => ({ tool: { case: tool.toolCase, value: { args: tool.args, ...(result === undefined ? {} : { result }) } } })
      this.#update('toolCallStarted', { callId, modelCallId, toolCall: toolCall() })
      const answer = await this.#exec(tool.execCase, tool.execArgs)
      const { text, isError } = answerText(answer)
      this.#update('toolCallCompleted', { callId, modelCallId, toolCall: toolCall(uiResult(tool, answer)) })
      this.#update('stepCompleted', { stepId: BigInt(step), stepDurationMs: BigInt(Date.now() - startedAt) })
      const assistant: ConversationPart[] = [
        ...(turn.text === '' ? [] : [{ type: 'text' as const, text: turn.text }]),
        { type: 'tool-call', id: callId, name: tool.name, input: tool.input },
      ]
      messages.push({ role: 'assistant', parts: assistant }, { role: 'user', parts: [{ type: 'tool-result', callId, text, isError }] })
      newChars = count(text)
    }
  }
}

/**
 * The `result` of a completed tool call, as Cursor's UI messages carry it:
 * the exec's own result where the types match (ls, grep, delete), an edit's
 * success from the write's; reads report none (the SDK shows the exec's).
 */
function uiResult(tool: CursorTool, answer: ExecAnswer): unknown {
  if (answer.kind === 'throw') return undefined
  if (tool.toolCase === 'editToolCall') {
    const result = oneof(answer.value, 'result')
    if (result.case !== 'success')
      return { result: { case: 'error', value: { path: tool.args.path, error: JSON.stringify((result.value as CursorMessage | undefined)?.toJson() ?? {}) } } }
    return { result: { case: 'success', value: { path: tool.args.path, afterFullFileContent: String(tool.execArgs.fileText) } } }
  }
  if (tool.toolCase === 'readToolCall') return undefined
  return answer.value
}

const sessions = new WeakMap<HandlerContext, Map<string, CursorSession>>()

function sessionFor(context: HandlerContext, requestId: string): CursorSession {
  let byId = sessions.get(context)
  if (byId === undefined) sessions.set(context, (byId = new Map()))
  let session = byId.get(requestId)
  if (session === undefined) byId.set(requestId, (session = new CursorSession(cursorSchemas(), context)))
  return session
}

function sendProto(response: ServerResponse, message?: CursorMessage): void {
  const bytes = message === undefined ? Buffer.alloc(0) : Buffer.from(message.toBinary())
  response.writeHead(200, { 'content-type': 'application/proto', 'content-length': bytes.length })
  response.end(bytes)
}

/** Cursor's agent backend (what `@cursor/sdk` speaks): the front door, RunSSE and BidiAppend. */
export const cursorAgentBackend: ProtocolHandler = {
  name: 'cursor',
  bodyFormat: 'binary',
  route(method, pathname) {
    if (method === 'POST' && (pathname === '/auth/exchange_user_api_key' || pathname === RUN_SSE)) return 'model'
    if (method === 'GET' && pathname === '/v1/models') return 'model'
    if (method === 'POST' && (pathname === BIDI_APPEND || EMPTY_ANSWERS.has(pathname))) return 'other'
    return null
  },
  handle(exchange: Exchange, context: HandlerContext) {
    const { response, pathname } = exchange
    if (pathname === '/auth/exchange_user_api_key') return sendJson(response, 200, { accessToken: 'scripted-access-token' })
    if (pathname === '/v1/models') {
      // Only Cursor's SDK lists models here: another client's GET /v1/models is not ours.
      if (exchange.headers['x-cursor-client-type'] === undefined) return sendJson(response, 404, { error: { message: 'the scripted model server lists models for Cursor only' } })
      const ids = context.model === undefined ? SCRIPTED_CURSOR_MODELS : [context.model]
      return sendJson(response, 200, { items: ids.map((id) => ({ id, displayName: id })) })
    }
    if (EMPTY_ANSWERS.has(pathname)) return sendProto(response)
    const schemas = cursorSchemas()
    if (pathname === RUN_SSE) {
      const { requestId } = schemas.type('aiserver.v1.BidiRequestId').fromBinary(firstEnvelope(exchange.rawBody)) as unknown as { requestId: string }
      return sessionFor(context, requestId).attach(response)
    }
    const append = schemas.type('aiserver.v1.BidiAppendRequest').fromBinary(exchange.rawBody) as unknown as {
      requestId?: { requestId: string }
      appendSeqno: bigint
      data: string
      dataBinary: Uint8Array
    }
    const bytes = append.dataBinary.length > 0 ? append.dataBinary : Buffer.from(append.data, 'hex')
    sessionFor(context, append.requestId?.requestId ?? '').append(append.appendSeqno, bytes)
    sendProto(response)
  },
  errorBody(status, message) {
    // Connect's error body; the key exchange reads `message` from it too.
    return { code: connectCode(status), message }
  },
}
