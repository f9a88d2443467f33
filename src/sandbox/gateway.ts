import http from 'node:http'
import https from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
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
  readonly #sockets: Set<Socket>

  private constructor(url: string, port: number, server: http.Server, exchanges: GatewayExchange[], sockets: Set<Socket>) {
    this.url = url
    this.port = port
    this.#server = server
    this.#exchanges = exchanges
    this.#sockets = sockets
  }

  /** Starts a gateway on a free 127.0.0.1 port, forwarding to `options.upstream`. */
  static async start(options: GatewayOptions): Promise<MeteringGateway> {
    const upstream = new URL(options.upstream)
    if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error(`the metering gateway forwards to http(s) URLs, not ${options.upstream}`)
    const exchanges: GatewayExchange[] = []
    const sockets = new Set<Socket>()
    const server = http.createServer((request, response) => forward(upstream, options.headers ?? {}, request, response, (exchange) => exchanges.push(exchange)))
    server.on('connection', (socket) => {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve())
    })
    const { port } = server.address() as AddressInfo
    const base = upstream.pathname.replace(/\/+$/, '')
    return new MeteringGateway(`http://127.0.0.1:${port}${base}`, port, server, exchanges, sockets)
  }

  /** Every exchange so far, in the order their responses ended. */
  get exchanges(): readonly GatewayExchange[] {
    return [...this.#exchanges]
  }

  /** Stops the gateway, dropping open connections. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }
}

function forward(
  upstream: URL,
  extra: Readonly<Record<string, string>>,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  done: (exchange: GatewayExchange) => void,
): void {
  const method = request.method ?? 'GET'
  const requestPath = request.url ?? '/'
  const headers: http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value
  for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value
  headers['accept-encoding'] = 'identity'
  const client = upstream.protocol === 'https:' ? https : http
  const outgoing = client.request(
    {
      protocol: upstream.protocol,
      hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
      port: upstream.port === '' ? undefined : Number(upstream.port),
      method,
      path: requestPath,
      headers: { ...headers, host: upstream.host },
    },
    (reply) => {
      const reader = new UsageReader()
      const streamed = /text\/event-stream/i.test(String(reply.headers['content-type'] ?? ''))
      const decoder = new StringDecoder('utf8')
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
        if (streamed) splitter.push(decoder.end())
        if (streamed) splitter.end()
        else readJsonBody(Buffer.concat(body), reader)
        done({ method, path: requestPath, status: reply.statusCode ?? null, usage: reader.usage })
      })
      const replyHeaders = { ...reply.headers }
      delete replyHeaders.connection
      delete replyHeaders['keep-alive']
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
  request.once('aborted', () => outgoing.destroy())
  request.pipe(outgoing)
}

function readJsonBody(body: Buffer, reader: UsageReader): void {
  if (body.length === 0) return
  try {
    reader.add(JSON.parse(body.toString('utf8')))
  } catch {
    // Not JSON (a health check's empty answer, an HTML error page): no usage.
  }
}
