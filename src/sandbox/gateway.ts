import http from 'node:http'
import https from 'node:https'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { StringDecoder } from 'node:string_decoder'
import { EventStreamSplitter, UsageReader, type ResponseUsage } from './usage-reader.ts'

/**
 * The metering gateway: one run's model traffic, counted by the harness.
 * An HTTP server on the harness's 127.0.0.1 (a sandboxed agent reaches it
 * at the same address through the run's loopback forwarding) that forwards
 * every request to one upstream, the real provider over HTTPS or the run's
 * scripted model server, and reads the provider's own usage fields from each
 * response as it streams back (`usage-reader.ts`). The agent never sees
 * the upstream's address, so what it spends through the gateway is what the
 * provider billed, whatever the agent or an add-on inside it later prints.
 *
 * Requests ask for an uncompressed answer (`accept-encoding: identity`) so
 * the usage fields can be read; nothing else of them is changed but the
 * headers named in `headers` (the harness's key, where it holds one).
 */

/** One request the gateway forwarded and what its response reported. */
export interface GatewayExchange {
  readonly method: string
  readonly path: string
  /** The upstream's status, or null when it could not be reached. */
  readonly status: number | null
  /** The provider's usage, or null when the response carried none (a health check, an error, a token count). */
  readonly usage: ResponseUsage | null
}

/** How a run's gateway is set up. */
export interface GatewayOptions {
  /** The base URL requests are forwarded to (`https://api.anthropic.com`, `http://127.0.0.1:<scripted>/v1`). */
  readonly upstream: string
  /** Headers set on every forwarded request (an API key the harness holds), replacing the agent's. */
  readonly headers?: Readonly<Record<string, string>>
}

/** A response body kept for usage when it is not an event stream, at most this long (a model answer is far smaller). */
const MAX_JSON_BODY = 32 * 1024 * 1024

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'accept-encoding', 'content-length'])

/** A run's metering gateway. `close()` when the run ends. */
export class MeteringGateway {
  /** The base URL to give the agent in place of the upstream's (same path). */
  readonly url: string
  /** The gateway's port on 127.0.0.1 (forward it into the sandbox). */
  readonly port: number
  readonly #exchanges: GatewayExchange[]
  readonly #server: http.Server

  private constructor(url: string, port: number, server: http.Server, exchanges: GatewayExchange[]) {
    this.url = url
    this.port = port
    this.#server = server
    this.#exchanges = exchanges
  }

  /** Starts a gateway on a free 127.0.0.1 port, forwarding to `options.upstream`. */
  static async start(options: GatewayOptions): Promise<MeteringGateway> {
    const upstream = new URL(options.upstream)
    if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error(`the metering gateway forwards to http(s) URLs, not ${options.upstream}`)
    const exchanges: GatewayExchange[] = []
    const server = http.createServer((request, response) => forward(upstream, options.headers ?? {}, request, response, (exchange) => exchanges.push(exchange)))
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    const base = upstream.pathname.replace(/\/+$/, '')
    return new MeteringGateway(`http://127.0.0.1:${port}${base}`, port, server, exchanges)
  }

  /** Every exchange so far, in the order their responses ended. */
  get exchanges(): readonly GatewayExchange[] {
    return [...this.#exchanges]
  }

  /** Stops the gateway, dropping open connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}

function forward(
  upstream: URL,
  extra: Readonly<Record<string, string>>,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  record: (exchange: GatewayExchange) => void,
): void {
  // Stryker disable next-line StringLiteral: a server's request always has a method and a URL (Node's parser sets both).
  const [method, requestPath] = [request.method ?? 'GET', request.url ?? '/']
  // Once per request: an upstream that resets mid-answer ends the reply and, on Node 24, fails the request too.
  // Node 22 reports the reply's end alone, so the mutation run (on Node 22) cannot see the guard's mutants; the
  // test of a reset mid-answer kills them on Node 24.
  let recorded = false
  const done = (exchange: GatewayExchange) => {
    // Stryker disable next-line ConditionalExpression,BlockStatement: see above.
    if (recorded) return
    // Stryker disable next-line BooleanLiteral: see above.
    recorded = true
    record(exchange)
  }
  const headers: http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value
  // Stryker disable next-line MethodExpression: Node sends one header per name whatever its case, the last set winning, and the harness's are set last.
  for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value
  headers['accept-encoding'] = 'identity'
  const client = upstream.protocol === 'https:' ? https : http
  const outgoing = client.request(
    {
      protocol: upstream.protocol,
      // Stryker disable next-line Regex: a URL's hostname holds brackets only at its two ends (an IPv6 address).
      hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
      // '' (none given): Node takes the scheme's own.
      port: upstream.port,
      method,
      path: requestPath,
      headers: { ...headers, host: upstream.host },
    },
    (reply) => {
      const reader = new UsageReader()
      const streamed = /text\/event-stream/i.test(String(reply.headers['content-type']))
      const decoder = new StringDecoder()
      const splitter = new EventStreamSplitter((value) => reader.add(value))
      const body: Buffer[] = []
      let kept = 0
      reply.on('data', (chunk: Buffer) => {
        if (streamed) splitter.push(decoder.write(chunk))
        else if (kept + chunk.length <= MAX_JSON_BODY) {
          body.push(chunk)
          kept += chunk.length
        }
      })
      reply.once('end', () => {
        // The last event may lack its blank line; an unfinished character at the very end (`decoder.end()`) holds no usage.
        if (streamed) splitter.end()
        else readJsonBody(Buffer.concat(body), reader)
        done({ method, path: requestPath, status: reply.statusCode ?? null, usage: reader.usage })
      })
      // The upstream gone mid-answer: the agent is cut off as the provider cut the gateway off (never left waiting),
      // and what the answer reported before it broke is counted, since the provider bills what it streamed.
      reply.once('close', () => {
        if (reply.complete) return
        response.destroy()
        done({ method, path: requestPath, status: reply.statusCode ?? null, usage: reader.usage })
      })
      const replyHeaders = { ...reply.headers }
      delete replyHeaders.connection
      delete replyHeaders['keep-alive']
      // Stryker disable next-line StringLiteral: kept, Node would frame the answer the same (it chunks an answer without a length itself).
      delete replyHeaders['transfer-encoding']
      response.writeHead(reply.statusCode ?? 502, replyHeaders)
      reply.pipe(response)
    },
  )
  outgoing.once('error', (error) => {
    done({ method, path: requestPath, status: null, usage: null })
    if (!response.headersSent)
      response.writeHead(502, { 'content-type': 'text/plain' }).end(`task-outcome metering gateway: the model provider could not be reached (${error.message})\n`)
    else response.destroy()
  })
  request.once('close', () => {
    if (!request.complete) outgoing.destroy()
  })
  request.pipe(outgoing)
}

function readJsonBody(body: Buffer, reader: UsageReader): void {
  try {
    reader.add(JSON.parse(body.toString('utf8')))
  } catch {
    // Not JSON (a health check's empty answer, an HTML error page): no usage.
  }
}
