import { existsSync } from 'node:fs'
import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { waitFor } from '../helpers/wait-for.ts'
import { allowedBy, HEADERS_DEADLINE_MS, MAX_EXAMPLES, MAX_HEADER_BYTES, PROXY_PORT, REQUEST_DEADLINE_MS, SandboxNetwork } from '../../src/sandbox/network.ts'

// The harness's side of a run's network, driven over its own Unix sockets (no sandbox needed to reach them): the
// allowlist, the forwarded loopback ports, the proxy that lets the allowed hosts through and refuses, counts and
// remembers every other destination. Nothing here leaves 127.0.0.1.

describe('allowedBy', () => {
  test.each([
    ['an exact host', ['api.example.com'], 'api.example.com', 443, true],
    ['another host', ['api.example.com'], 'other.example.com', 443, false],
    ['a host that only ends like the entry', ['example.com'], 'badexample.com', 443, false],
    ['a host, any port', ['api.example.com'], 'api.example.com', 8080, true],
    ['the host in another case', ['API.Example.com'], 'api.EXAMPLE.com', 443, true],
    ['host:port, that port', ['api.example.com:8443'], 'api.example.com', 8443, true],
    ['host:port, another port', ['api.example.com:8443'], 'api.example.com', 443, false],
    ['host:port, another host on that port', ['api.example.com:8443'], 'x.example.com', 8443, false],
    ['a port written with a leading zero', ['api.example.com:0443'], 'api.example.com', 443, true],
    ['a wildcard, a subdomain', ['*.example.com'], 'api.example.com', 443, true],
    ['a wildcard, a deeper subdomain', ['*.example.com'], 'a.b.example.com', 443, true],
    ['a wildcard, a one-letter subdomain', ['*.example.com'], 'a.example.com', 443, true],
    ['a wildcard, the domain itself', ['*.example.com'], 'example.com', 443, false],
    ['a wildcard, a name that only ends like it', ['*.example.com'], 'badexample.com', 443, false],
    ['a wildcard, an empty label before it', ['*.example.com'], '.example.com', 443, false],
    ['a wildcard in another case', ['*.EXAMPLE.com'], 'Api.Example.COM', 443, true],
    ['a wildcard with a port, that port', ['*.example.com:443'], 'api.example.com', 443, true],
    ['a wildcard with a port, another port', ['*.example.com:443'], 'api.example.com', 80, false],
    ['a wildcard that is only a suffix match without the dot', ['*example.com'], 'api.example.com', 443, false],
    ['an entry with an empty port', ['api.example.com:'], 'api.example.com', 443, false],
    ['an entry whose port is no number', ['api.example.com:https'], 'api.example.com', 443, false],
    ['a leading colon taken as no port', [':443'], '', 443, false],
    ['an IPv4 address and port', ['127.0.0.1:8080'], '127.0.0.1', 8080, true],
    ['an IPv4 address, another one', ['127.0.0.1'], '127.0.0.2', 80, false],
    ['a bracketed IPv6 host against a bare entry', ['::1'], '[::1]', 443, true],
    ['a bare IPv6 host against a bare entry, any port', ['::1'], '::1', 8080, true],
    ['a bare IPv6 entry whose last group is no port', ['2001:db8::1'], '2001:db8::1', 1, true],
    ['a bare IPv6 entry against the address its last group cut off', ['2001:db8::1'], '2001:db8:', 1, false],
    ['a bracketed IPv6 entry', ['[::1]'], '::1', 443, true],
    ['a bracketed IPv6 entry against a bracketed host', ['[2001:DB8::1]'], '[2001:db8::1]', 443, true],
    ['a bracketed IPv6 entry with a port, that port', ['[::1]:8080'], '::1', 8080, true],
    ['a bracketed IPv6 entry with a port, another port', ['[::1]:8080'], '::1', 80, false],
    ['a bracketed IPv6 entry with a port, another address', ['[::1]:8080'], '::2', 8080, false],
    ['a bracket inside an entry, kept (only the ends are brackets)', ['a[b.example.com'], 'ab.example.com', 443, false],
    ['a closing bracket inside an entry, kept', ['a]b.example.com'], 'ab.example.com', 443, false],
    ['the second entry of several', ['a.example.com', 'b.example.com:80'], 'b.example.com', 80, true],
    ['no entry', [], 'api.example.com', 443, false],
  ])('%s: %j, %s:%i → %s', (_what, allow, host, port, allowed) => {
    expect(allowedBy(allow, host, port)).toBe(allowed)
  })
})

describe('the network’s limits', () => {
  test('a 3128 proxy, 16 KiB of headers sent within 10 s, a request within 120 s, 20 examples kept', () => {
    expect([PROXY_PORT, MAX_HEADER_BYTES, HEADERS_DEADLINE_MS, REQUEST_DEADLINE_MS, MAX_EXAMPLES]).toStrictEqual([3128, 16 * 1024, 10_000, 120_000, 20])
  })
})

/** A local HTTP server standing for a host outside (it records what reached it). */
let upstream: http.Server
let upstreamPort: number
const hits: string[] = []
/** A raw TCP server standing for a TLS host behind a CONNECT tunnel: it echoes with a prefix. */
let echo: net.Server
let echoPort: number

beforeAll(async () => {
  upstream = http.createServer((request, response) => {
    hits.push(`${request.method} ${request.url} ${request.headers['x-test'] ?? ''}`)
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => response.writeHead(201, { 'x-answer': 'yes' }).end(`got ${request.url} ${body}`))
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()))
  upstreamPort = (upstream.address() as AddressInfo).port
  echo = net.createServer((socket) => socket.on('data', (chunk) => socket.write(`echo:${chunk}`)))
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()))
  echoPort = (echo.address() as AddressInfo).port
})
afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve))
  await new Promise((resolve) => echo.close(resolve))
})

let network: SandboxNetwork | undefined
afterEach(async () => {
  await network?.close()
  network = undefined
  hits.length = 0
})

async function start(allow: readonly string[]): Promise<SandboxNetwork> {
  network = await SandboxNetwork.start(allow)
  return network
}

/** Sends `bytes` to the socket `name` of the network and reads until it closes (or `until` is in the answer). */
function raw(running: SandboxNetwork, name: string, bytes: string, until?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(path.join(running.socketDir, name))
    let answer = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      answer += chunk
      if (until !== undefined && answer.includes(until)) {
        socket.destroy()
        resolve(answer)
      }
    })
    socket.on('close', () => resolve(answer))
    socket.on('error', reject)
    socket.write(bytes)
  })
}

/** An HTTP request through the proxy socket, as a proxied client sends it (an absolute URL). */
function viaProxy(
  running: SandboxNetwork,
  url: string,
  options: { method?: string; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { socketPath: path.join(running.socketDir, 'proxy.sock'), path: url, method: options.method ?? 'GET', headers: { 'x-test': 'kept' } },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    request.end(options.body)
  })
}

describe('SandboxNetwork', () => {
  test('starts with its proxy socket in a short-named folder of its own, and removes it on close', async () => {
    const started = await start([])
    expect(path.basename(started.socketDir)).toMatch(/^to-net-/)
    expect(existsSync(path.join(started.socketDir, 'proxy.sock'))).toBe(true)
    await started.close()
    network = undefined
    expect(existsSync(started.socketDir)).toBe(false)
  })

  test('gives the sandbox its proxy variables, loopback going direct', async () => {
    const started = await start([])
    const proxy = 'http://127.0.0.1:3128'
    const direct = '127.0.0.1,localhost,::1'
    expect(started.env).toStrictEqual({ HTTPS_PROXY: proxy, HTTP_PROXY: proxy, https_proxy: proxy, http_proxy: proxy, NO_PROXY: direct, no_proxy: direct })
  })

  test('forwards each loopback port of the spec through a socket of its own, started once', async () => {
    const started = await start([])
    const spec = await started.spec([upstreamPort])
    expect(spec).toStrictEqual({ socketDir: started.socketDir, loopbackPorts: [upstreamPort], proxyPort: 3128 })
    expect(await started.spec([upstreamPort])).toStrictEqual(spec)
    const answer = await raw(started, `${upstreamPort}.sock`, 'GET /direct HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 201/)
    expect(answer).toContain('got /direct')
    expect(started.denials).toStrictEqual({ count: 0, examples: [] })
  })

  test('refuses to forward the proxy’s own port', async () => {
    const started = await start([])
    await expect(started.spec([PROXY_PORT])).rejects.toThrow("loopback port 3128 is the sandbox's proxy port")
  })

  test('lets an allowed host through, method, path, headers and body, and counts its bytes', async () => {
    const started = await start([`127.0.0.1:${upstreamPort}`])
    const answer = await viaProxy(started, `http://127.0.0.1:${upstreamPort}/v1/messages?x=1`, { method: 'POST', body: 'hello' })
    expect(answer.status).toBe(201)
    expect(answer.headers['x-answer']).toBe('yes')
    expect(answer.body).toBe('got /v1/messages?x=1 hello')
    expect(hits).toStrictEqual(['POST /v1/messages?x=1 kept'])
    expect(started.denials).toStrictEqual({ count: 0, examples: [] })
    const [entry] = started.egress
    expect(entry?.host).toBe('127.0.0.1')
    expect(entry?.connections).toBe(1)
    expect(entry?.bytesUp).toBeGreaterThan(0)
    expect(entry?.bytesDown).toBeGreaterThan(0)
  })

  test('refuses a host outside the allowlist with a 403 naming it, and counts and remembers it', async () => {
    const started = await start(['api.example.com'])
    const answer = await viaProxy(started, `http://127.0.0.1:${upstreamPort}/secret`)
    expect(answer.status).toBe(403)
    expect(answer.headers.connection).toBe('close')
    expect(answer.body).toBe("task-outcome sandbox: 127.0.0.1 is not in the experiment's sandbox.allow\n")
    expect(hits).toStrictEqual([])
    expect(started.denials).toStrictEqual({ count: 1, examples: [`GET http://127.0.0.1:${upstreamPort}`] })
    expect(started.egress).toStrictEqual([])
  })

  test('refuses an allowed host asked for by a protocol other than http', async () => {
    const started = await start([`127.0.0.1:${upstreamPort}`])
    const answer = await viaProxy(started, `ftp://127.0.0.1:${upstreamPort}/file`)
    expect(answer.status).toBe(403)
    expect(started.denials).toStrictEqual({ count: 1, examples: [`GET ftp://127.0.0.1:${upstreamPort}`] })
    expect(hits).toStrictEqual([])
  })

  test('answers a request that names no absolute URL with a 400, counted', async () => {
    const started = await start([`127.0.0.1:${upstreamPort}`])
    const answer = await viaProxy(started, '/relative')
    expect(answer.status).toBe(400)
    expect(answer.headers.connection).toBe('close')
    expect(answer.body).toBe('task-outcome sandbox proxy: absolute URL expected\n')
    expect(started.denials).toStrictEqual({ count: 1, examples: ['GET /relative (not an absolute http URL)'] })
  })

  test('answers a request the parser refuses with a 400 it counts once, named by the parser’s code', async () => {
    const started = await start([`127.0.0.1:${upstreamPort}`])
    const answer = await raw(started, 'proxy.sock', 'G@T http://127.0.0.1/ HTTP/1.1\r\n\r\nmore bytes the client still sends\r\n\r\n')
    expect(answer).toBe('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
    expect(started.denials).toStrictEqual({ count: 1, examples: ['malformed request (HPE_INVALID_METHOD)'] })
  })

  test('answers headers past 16 KiB with a 431, counted', async () => {
    const started = await start([`127.0.0.1:${upstreamPort}`])
    const answer = await raw(started, 'proxy.sock', `GET http://127.0.0.1:${upstreamPort}/ HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(answer).toBe('HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
    expect(started.denials).toStrictEqual({ count: 1, examples: ['malformed request (HPE_HEADER_OVERFLOW)'] })
  })

  test('drops the client’s connection when an allowed host is down', async () => {
    const closed = net.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const started = await start([`127.0.0.1:${port}`])
    await expect(viaProxy(started, `http://127.0.0.1:${port}/`)).rejects.toThrow()
    expect(started.denials.count).toBe(0)
  })

  test('tunnels a CONNECT to an allowed host, the bytes sent with the request included, and counts it', async () => {
    const started = await start([`127.0.0.1:${echoPort}`])
    const answer = await raw(started, 'proxy.sock', `CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nHost: x\r\n\r\nearly`, 'echo:early')
    expect(answer.startsWith('HTTP/1.1 200 Connection Established\r\n\r\n')).toBe(true)
    expect(answer).toContain('echo:early')
    expect(started.denials).toStrictEqual({ count: 0, examples: [] })
    expect(started.egress.map((entry) => [entry.host, entry.connections])).toStrictEqual([['127.0.0.1', 1]])
  })

  test('tunnels a CONNECT that sends its bytes after the answer', async () => {
    const started = await start([`127.0.0.1:${echoPort}`])
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(path.join(started.socketDir, 'proxy.sock'))
      let text = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => {
        text += chunk
        if (text.endsWith('\r\n\r\n')) socket.write('later')
        if (text.includes('echo:later')) {
          socket.destroy()
          resolve(text)
        }
      })
      socket.on('error', reject)
      socket.write(`CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nHost: x\r\n\r\n`)
    })
    expect(answer).toBe('HTTP/1.1 200 Connection Established\r\n\r\necho:later')
  })

  test.each([
    ['a host outside the allowlist', 'CONNECT github.com:443', 'CONNECT github.com:443'],
    ['a malformed target', 'CONNECT x:99999', 'CONNECT x:99999 (malformed target)'],
  ])('refuses a CONNECT to %s with a 403, counted', async (_what, line, example) => {
    const started = await start([`127.0.0.1:${echoPort}`])
    const answer = await raw(started, 'proxy.sock', `${line} HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect(answer).toBe('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n')
    expect(started.denials).toStrictEqual({ count: 1, examples: [example] })
  })

  test('answers a CONNECT to an allowed host that is down with a 502', async () => {
    const closed = net.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const started = await start([`127.0.0.1:${port}`])
    const answer = await raw(started, 'proxy.sock', `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect(answer).toBe('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n')
  })

  test.each([
    ['bytes that are no request', 'NOT HTTP AT ALL\r\n\r\n', '400 Bad Request', 'malformed request (HPE_'],
    [
      'a header block over 16 KiB',
      `GET http://127.0.0.1/ HTTP/1.1\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
      '431 Request Header Fields Too Large',
      'malformed request (HPE_HEADER_OVERFLOW)',
    ],
  ])('answers %s with one refusal, counted once', async (_what, bytes, status, example) => {
    const started = await start([])
    const answer = await raw(started, 'proxy.sock', bytes)
    expect(answer).toBe(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`)
    expect(started.denials.count).toBe(1)
    expect(started.denials.examples[0]?.startsWith(example)).toBe(true)
  })

  test('keeps at most 20 examples of its refusals, counting every one', async () => {
    const started = await start([])
    for (let i = 0; i < MAX_EXAMPLES + 3; i++) await raw(started, 'proxy.sock', `CONNECT host${i}.example.com:443 HTTP/1.1\r\n\r\n`)
    expect(started.denials.count).toBe(23)
    expect(started.denials.examples).toStrictEqual(Array.from({ length: 20 }, (_, i) => `CONNECT host${i}.example.com:443`))
  })

  test('forwards a request without a Host header too: the proxy judges every request itself', async () => {
    const started = await start([`127.0.0.1:${upstreamPort}`])
    const answer = await raw(started, 'proxy.sock', `GET http://127.0.0.1:${upstreamPort}/no-host HTTP/1.1\r\nConnection: close\r\n\r\n`)
    expect(answer).toMatch(/^HTTP\/1\.1 201/)
    expect(hits).toStrictEqual(['GET /no-host '])
  })

  test('close ends the forwarded connections on both sides', async () => {
    let upstreamSide: net.Socket | undefined
    const holder = net.createServer((socket) => {
      upstreamSide = socket
      socket.on('error', () => undefined)
    })
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()))
    const port = (holder.address() as AddressInfo).port
    try {
      const started = await start([])
      await started.spec([port])
      const client = net.connect(path.join(started.socketDir, `${port}.sock`))
      client.on('error', () => undefined)
      await new Promise<void>((resolve) => client.once('connect', () => resolve()))
      await waitFor(() => upstreamSide !== undefined, 'the forwarded connection to arrive')
      const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()))
      const upstreamClosed = new Promise<void>((resolve) => upstreamSide!.once('close', () => resolve()))
      await started.close()
      network = undefined
      await Promise.all([clientClosed, upstreamClosed])
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })

  test('close drops the connections still open, and every listener with them', async () => {
    const started = await start([`127.0.0.1:${echoPort}`])
    await started.spec([upstreamPort])
    const socket = net.connect(path.join(started.socketDir, 'proxy.sock'))
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.on('error', () => undefined)
    await started.close()
    network = undefined
    await ended
    expect(existsSync(started.socketDir)).toBe(false)
  })
})
