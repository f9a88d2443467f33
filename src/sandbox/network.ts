import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { PROXY_SOCKET } from './command.ts'
import { EgressLedger, type EgressEntry } from './egress.ts'
import { absoluteTarget, connectTarget, printable } from './proxy-target.ts'
import type { SandboxNetworkSpec } from './spec.ts'

/**
 * The harness's side of a run's network. The sandbox has a network namespace
 * of its own (loopback only); what it may reach is served here over Unix
 * sockets bound into it, which socat inside exposes on 127.0.0.1:
 *
 * - `<port>.sock` for each forwarded loopback port (the run's scripted model
 *   server): bytes piped to 127.0.0.1:<port> of the harness;
 * - `proxy.sock`, an HTTP proxy (`CONNECT` and absolute-URI requests) that
 *   lets through only the hosts of `sandbox.allow` and refuses, counts and
 *   remembers every other destination.
 *
 * Nothing else leaves the namespace: a direct connection to any other address
 * finds no route, or nobody listening on the sandbox's own loopback.
 */

/** The proxy's port on the sandbox's loopback. */
export const PROXY_PORT = 3128

/** Largest header block the proxy reads (request line and headers). */
export const MAX_HEADER_BYTES = 16 * 1024

/** A client must send its whole header block within this time (a slow client is refused). */
export const HEADERS_DEADLINE_MS = 10_000

/** A client must send its whole request (headers and body) within this time. */
export const REQUEST_DEADLINE_MS = 120_000

/** How many refused destinations a run keeps as examples. */
export const MAX_EXAMPLES = 20

/**
 * Whether `host:port` matches an allow entry (`host`, `host:port`, or `*.domain` for its subdomains). An IPv6
 * address is an entry with or without brackets, and takes a port only in brackets (`[::1]:8080`): the last group
 * of a bare `::1` is no port.
 */
export function allowedBy(allow: readonly string[], host: string, port: number): boolean {
  const name = unbracketed(host.toLowerCase())
  return allow.some((raw) => {
    const entry = raw.toLowerCase()
    const colon = entry.lastIndexOf(':')
    // Stryker disable next-line Regex: a non-digit left in the port makes Number NaN, which equals no port.
    const ported = colon > 0 && /^\d+$/.test(entry.slice(colon + 1)) && (entry.indexOf(':') === colon || entry[colon - 1] === ']')
    const [pattern, entryPort] = ported ? [unbracketed(entry.slice(0, colon)), Number(entry.slice(colon + 1))] : [unbracketed(entry), undefined]
    if (entryPort !== undefined && entryPort !== port) return false
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1 : name === pattern
  })
}

function unbracketed(host: string): string {
  return host.replace(/^\[|\]$/g, '')
}

/** What the proxy refused in one run. */
export interface NetworkDenials {
  readonly count: number
  readonly examples: readonly string[]
}

/** One run's network: the forwarders and the allowlisting proxy. */
export class SandboxNetwork {
  readonly socketDir: string
  readonly #allow: readonly string[]
  readonly #servers = new Map<string, net.Server>()
  readonly #sockets = new Set<net.Socket>()
  #denied = 0
  readonly #examples: string[] = []
  readonly #egress = new EgressLedger()

  private constructor(socketDir: string, allow: readonly string[]) {
    this.socketDir = socketDir
    this.#allow = allow
  }

  /**
   * Starts a run's network with its proxy. The socket folder is short-named
   * under the system temp folder (a Unix socket path holds at most 107 bytes).
   */
  static async start(allow: readonly string[]): Promise<SandboxNetwork> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'to-net-'))
    const network = new SandboxNetwork(dir, allow)
    await network.#listen(PROXY_SOCKET, network.#proxy())
    return network
  }

  /** What the sandbox spec needs to reach this network, with `ports` forwarded (started on first use). */
  async spec(ports: readonly number[]): Promise<SandboxNetworkSpec> {
    for (const port of ports) {
      if (port === PROXY_PORT) throw new Error(`loopback port ${PROXY_PORT} is the sandbox's proxy port`)
      if (!this.#servers.has(`${port}.sock`)) await this.#listen(`${port}.sock`, this.#forwarder(port))
    }
    return { socketDir: this.socketDir, loopbackPorts: [...ports], proxyPort: PROXY_PORT }
  }

  /** The proxy variables a sandboxed process gets (loopback goes direct: to the forwarded ports). */
  get env(): Record<string, string> {
    const proxy = `http://127.0.0.1:${PROXY_PORT}`
    const direct = '127.0.0.1,localhost,::1'
    return { HTTPS_PROXY: proxy, HTTP_PROXY: proxy, https_proxy: proxy, http_proxy: proxy, NO_PROXY: direct, no_proxy: direct }
  }

  /** Refused connections so far. */
  get denials(): NetworkDenials {
    return { count: this.#denied, examples: [...this.#examples] }
  }

  /** Every host reached through the proxy so far, with connections and bytes. */
  get egress(): EgressEntry[] {
    return this.#egress.entries
  }

  #deny(what: string): void {
    this.#denied += 1
    if (this.#examples.length < MAX_EXAMPLES) this.#examples.push(what)
  }

  #track(socket: net.Socket): void {
    this.#sockets.add(socket)
    socket.once('close', () => this.#sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }

  async #listen(name: string, server: net.Server): Promise<void> {
    const file = path.join(this.socketDir, name)
    server.listen(file)
    await once(server, 'listening')
    this.#servers.set(name, server)
  }

  #forwarder(port: number): net.Server {
    return net.createServer((inside) => {
      this.#track(inside)
      // Stryker disable next-line StringLiteral: '' is Node's default, localhost.
      const outside = net.connect({ host: '127.0.0.1', port })
      this.#track(outside)
      inside.pipe(outside)
      outside.pipe(inside)
    })
  }

  // A handler that threw: refused, counted and its connection dropped, so no handler throws into the event loop. No
  // request found makes one throw (the targets are parsed by proxy-target.ts first; sandbox/proxy-fuzz's 3,000
  // requests among them), so no test reaches this.
  // Stryker disable all
  #thrown(what: string, error: unknown, drop: () => void): void {
    this.#deny(`${what} (${printable(String(error), 60)})`)
    drop()
  }
  // Stryker restore all

  /**
   * The allowlisting proxy. Everything the agent sends is parsed defensively
   * (`proxy-target.ts`); a request line or header block too long, a client too
   * slow to send its headers, a malformed target or a destination outside
   * `sandbox.allow` is refused and counted; no handler may throw into the event loop.
   */
  #proxy(): http.Server {
    const options = {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: HEADERS_DEADLINE_MS,
      requestTimeout: REQUEST_DEADLINE_MS,
      // Node checks the deadlines at this interval (default 30 s): a slow client is dropped within a second of its deadline.
      connectionsCheckingInterval: 1000,
      // Node would answer a request without Host with a 400 of its own, uncounted: the proxy judges every request itself.
      requireHostHeader: false,
    }
    const server = http.createServer(options, (request, response) => {
      try {
        this.#forward(request, response)
      } catch (error) {
        // Stryker disable next-line all: no request found makes #forward throw (see #thrown).
        this.#thrown(`${printable(String(request.method), 16)} ${printable(String(request.url))}`, error, () => response.destroy())
      }
    })
    server.on('connection', (socket: net.Socket) => this.#track(socket))
    const refused = new WeakSet<net.Socket>()
    server.on('clientError', (error: NodeJS.ErrnoException, socket: net.Socket) => {
      // A request the parser refused (malformed, headers too large, too slow): one refusal per connection.
      const code = error.code ?? 'malformed'
      if (code === 'ECONNRESET' || code === 'EPIPE') return socket.destroy()
      if (refused.has(socket)) return
      refused.add(socket)
      this.#deny(`malformed request (${printable(code, 40)})`)
      const status = code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request'
      if (!socket.writable) return socket.destroy()
      // Read what the client still sends, so closing does not reset the connection before it reads the answer; dropped within a second.
      socket.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`)
      socket.resume()
      setTimeout(() => socket.destroy(), 1000).unref()
    })
    server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      try {
        this.#tunnel(request, client, head)
      } catch (error) {
        // Stryker disable next-line all: no request found makes #tunnel throw (see #thrown).
        this.#thrown(`CONNECT ${printable(String(request.url))}`, error, () => client.destroy())
      }
    })
    return server
  }

  // A server's request always has its method and URL (Node's parser sets both), so they are printed as they are.
  #forward(request: http.IncomingMessage, response: http.ServerResponse): void {
    const target = absoluteTarget(request.url)
    if (target === null) {
      this.#deny(`${printable(String(request.method), 16)} ${printable(String(request.url))} (not an absolute http URL)`)
      response.writeHead(400, { connection: 'close' }).end('task-outcome sandbox proxy: absolute URL expected\n')
      return
    }
    if (target.protocol !== 'http:' || !allowedBy(this.#allow, target.host, target.port)) {
      this.#deny(`${printable(String(request.method), 16)} ${target.protocol}//${target.host}:${target.port}`)
      response.writeHead(403, { connection: 'close' }).end(`task-outcome sandbox: ${target.host} is not in the experiment's sandbox.allow\n`)
      return
    }
    // A socket of its own per request (no pooling), so the ledger counts its bytes once.
    const upstream = http.request({ host: target.host, port: target.port, method: request.method, path: target.path, headers: request.headers, agent: false }, (reply) => {
      try {
        response.writeHead(reply.statusCode ?? 502, reply.headers)
      } catch {
        response.destroy()
        reply.destroy()
        return
      }
      reply.pipe(response)
    })
    upstream.once('socket', (socket) => this.#egress.connection(target.host, socket, target.path))
    upstream.on('error', () => response.destroy())
    request.pipe(upstream)
  }

  #tunnel(request: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const target = connectTarget(request.url)
    if (target === null || !allowedBy(this.#allow, target.host, target.port)) {
      this.#deny(`CONNECT ${printable(String(request.url))}${target === null ? ' (malformed target)' : ''}`)
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n')
      return
    }
    const upstream = net.connect({ host: target.host, port: target.port }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      // Stryker disable next-line ConditionalExpression,EqualityOperator: writing an empty buffer sends nothing.
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    this.#track(upstream)
    this.#egress.connection(target.host, upstream)
    upstream.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'))
  }

  /** Stops every listener, drops open connections and removes the socket folder. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await Promise.all([...this.#servers.values()].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))))
    this.#servers.clear()
    // Stryker disable next-line BooleanLiteral: the folder is there when it is removed.
    await rm(this.socketDir, { recursive: true, force: true })
  }
}
