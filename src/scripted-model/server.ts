import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { faultFor, faultMessage, FaultRuleSchema, type Fault, type FaultRuleInput } from './faults.ts'
import { nextTurn, type PolicyOptions } from './policy.ts'
import type { Conversation, ModelTurn, ScriptedTask, Usage } from './types.ts'
import { UsageMeter } from './usage.ts'

/**
 * The scripted model server's core: a node:http server on 127.0.0.1 (a free
 * port) that reads each request, applies failure injection, and hands the
 * request to the protocol handler whose route matches. Handlers own their
 * wire format; the policy (what the model does) and usage accounting are
 * shared. See README.md in this folder for how to add a protocol.
 */

/** What kind of request a route is. Faults apply to `model` calls only. */
export type RouteKind = 'model' | 'count-tokens' | 'other'

/** One HTTP request, read and parsed, handed to a protocol handler. */
export interface Exchange {
  readonly method: string
  readonly pathname: string
  readonly searchParams: URLSearchParams
  readonly headers: IncomingHttpHeaders
  /** The parsed JSON body (undefined when the body was empty, or when the handler reads binary bodies). */
  readonly body: unknown
  /** The body as received, for protocols whose bodies are not JSON (Cursor's protobuf). */
  readonly rawBody: Buffer
  readonly response: ServerResponse
  readonly route: RouteKind
}

/** What the core gives a handler for each request. */
export interface HandlerContext {
  /** The policy's next turn for this conversation, bound to the run's task and seed. */
  turn(conversation: Conversation): ModelTurn
  /** Usage accounting (prompt caching included) shared by every request of the run. */
  readonly meter: UsageMeter
  /** The run's workspace (absolute), when the server was told; handlers make tool paths absolute with it. */
  readonly workspace: string | undefined
  /** The run's HOME (absolute), when the server was told; usage counts it as a stand-in (see `runPathCharacters`). */
  readonly home: string | undefined
  /** The model id to report; undefined: echo the request's model. */
  readonly model: string | undefined
  /** A fresh id, unique within the server (`msg_scripted_7`). */
  nextId(prefix: string): string
}

/** A protocol the server speaks (Anthropic Messages, OpenAI Responses, Gemini, Cursor's agent backend). */
export interface ProtocolHandler {
  /** Short name, recorded in the request log (`anthropic`). */
  readonly name: string
  /** The kind of request `method pathname` is for this protocol, or null when the protocol does not serve it. */
  route(method: string, pathname: string): RouteKind | null
  /** Answers one request. Errors thrown become a 500 in the protocol's error format. */
  handle(exchange: Exchange, context: HandlerContext): Promise<void> | void
  /** The protocol's JSON error body for an HTTP status. */
  errorBody(status: number, message: string): unknown
  /** `binary`: the core does not parse the body as JSON (the handler reads `rawBody`). Default `json`. */
  readonly bodyFormat?: 'json' | 'binary'
}

/** A request the server received, for tests and diagnostics. */
export interface ServedRequest {
  readonly protocol: string | null
  readonly method: string
  readonly pathname: string
  readonly route: RouteKind | null
  /** The injected fault, if one applied. */
  readonly fault: Fault['kind'] | null
}

/** How to start a scripted model server for one run. */
export interface ScriptedModelServerOptions {
  readonly task: ScriptedTask
  /** The run's seed: the policy's random choices derive from it. */
  readonly seed: number
  readonly workspace?: string
  /** The agent's HOME: with the workspace, a path the harness chose that must not change what a run bills. */
  readonly home?: string
  /** The model id reported in responses (default: the one requested). */
  readonly model?: string
  readonly policy?: PolicyOptions
  /** Failures to inject into model calls. */
  readonly faults?: readonly FaultRuleInput[]
  /** The protocols to speak (default: every registered one, see protocols.ts). */
  readonly handlers: readonly ProtocolHandler[]
  /** Delay before answering each model call, in ms (default 0). */
  readonly latencyMs?: number
  /** Report zero tokens on every response (the "$0 success" failure), for tests. */
  readonly zeroUsage?: boolean
}

/** A running server. */
export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>`: the base URL to give a CLI. */
  readonly url: string
  readonly port: number
  /** Every request received, in order. */
  readonly requests: readonly ServedRequest[]
  /** Total usage reported so far. */
  readonly usage: Usage
  /** Stops the server, dropping stalled and open connections. */
  close(): Promise<void>
}

/** Writes a JSON response. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
  response.end(text)
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Starts a scripted model server on 127.0.0.1 on a free port. */
export async function startScriptedModelServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const faults = (options.faults ?? []).map((rule) => FaultRuleSchema.parse(rule))
  const meter = new UsageMeter({ zero: options.zeroUsage ?? false })
  const requests: ServedRequest[] = []
  const sockets = new Set<Socket>()
  let ids = 0
  let modelCalls = 0
  const context: HandlerContext = {
    turn: (conversation) => nextTurn(conversation, options.task, options.seed, options.policy),
    meter,
    workspace: options.workspace,
    home: options.home,
    model: options.model,
    nextId: (prefix) => `${prefix}_scripted_${++ids}`,
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      void (async () => {
        const url = new URL(request.url ?? '/', 'http://127.0.0.1')
        const method = request.method ?? 'GET'
        let handler: ProtocolHandler | undefined
        let route: RouteKind | null = null
        for (const candidate of options.handlers) {
          route = candidate.route(method, url.pathname)
          if (route !== null) {
            handler = candidate
            break
          }
        }
        const log = (fault: Fault['kind'] | null) => requests.push({ protocol: handler?.name ?? null, method, pathname: url.pathname, route, fault })
        if (handler === undefined || route === null) {
          log(null)
          // Health checks (the Claude CLI sends `HEAD /`) succeed; anything else is unknown.
          if (url.pathname === '/') return void response.writeHead(200).end()
          return sendJson(response, 404, { error: { message: `the scripted model server does not serve ${method} ${url.pathname}` } })
        }
        if (route === 'model') {
          const fault = faultFor(faults, modelCalls++)
          if (fault !== undefined) {
            log(fault.kind)
            if (fault.kind === 'drop') return void request.socket.destroy()
            if (fault.kind === 'stall') return
            return sendJson(response, fault.status, handler.errorBody(fault.status, fault.message ?? faultMessage(fault.status)))
          }
          if (options.latencyMs) await sleep(options.latencyMs)
        }
        log(null)
        const rawBody = Buffer.concat(chunks)
        const raw = handler.bodyFormat === 'binary' ? '' : rawBody.toString('utf8')
        let body: unknown
        try {
          body = raw === '' ? undefined : JSON.parse(raw)
        } catch (error) {
          return sendJson(response, 400, handler.errorBody(400, `request body is not JSON: ${(error as Error).message}`))
        }
        try {
          await handler.handle({ method, pathname: url.pathname, searchParams: url.searchParams, headers: request.headers, body, rawBody, response, route }, context)
        } catch (error) {
          if (!response.headersSent) sendJson(response, 500, handler.errorBody(500, `scripted model server: ${(error as Error).message}`))
          else response.destroy()
        }
      })()
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get usage() {
      return meter.total
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
