import { existsSync, readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net, { type AddressInfo } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { MeteringGateway } from '../../src/sandbox/gateway.ts'
import { EventStreamSplitter, UsageReader } from '../../src/sandbox/usage-reader.ts'
import { sumTokens } from '../../src/agents/pricing/price.ts'
import type { Usage } from '../../src/scripted-model/index.ts'
import { GreetingModel, greetingTask } from '../scripted-model/greeting-model.ts'
import { waitFor } from '../helpers/wait-for.ts'

// The metering gateway in front of the real scripted model server, over real HTTP on 127.0.0.1: what it counts
// from the provider's own usage fields is what the server billed, streamed or not, in each protocol it reads.

const model = new GreetingModel()
let gateway: MeteringGateway | undefined
afterEach(async () => {
  await gateway?.close()
  gateway = undefined
})

const asTokens = (usage: Usage) => ({ input: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadTokens, cacheWrite: usage.cacheWriteTokens })
const counted = (g: MeteringGateway) => sumTokens(g.exchanges.flatMap((exchange) => (exchange.usage === null ? [] : [exchange.usage.tokens])))

const anthropic = (stream: boolean): ModelRequest => ({
  path: '/v1/messages',
  headers: { 'x-api-key': 'k' },
  body: {
    model: 'claude-sonnet-4-5',
    max_tokens: 1000,
    stream,
    system: [{ type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'Bash' }, { name: 'Read' }, { name: 'Edit' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: greetingTask.prompt, cache_control: { type: 'ephemeral' } }] }],
  },
})
const openai = (stream: boolean): ModelRequest => ({
  path: '/v1/responses',
  headers: { authorization: 'Bearer k' },
  body: {
    model: 'gpt-5.5',
    stream,
    prompt_cache_key: 'thread-1',
    tools: [
      { type: 'function', name: 'exec_command' },
      { type: 'custom', name: 'apply_patch' },
    ],
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: greetingTask.prompt }] },
    ],
  },
})
const gemini = (stream: boolean): ModelRequest => ({
  path: `/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  headers: { 'x-goog-api-key': 'k' },
  body: {
    contents: [{ role: 'user', parts: [{ text: greetingTask.prompt }] }],
    tools: [{ functionDeclarations: ['list_directory', 'read_file', 'replace', 'run_shell_command'].map((name) => ({ name })) }],
    systemInstruction: { parts: [{ text: 'You are an agent.' }] },
  },
})

/** A model request as a CLI sends it. */
interface ModelRequest {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: unknown
}

async function post(base: string, request: ModelRequest): Promise<string> {
  const response = await fetch(`${base}${request.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...request.headers },
    body: JSON.stringify(request.body),
  })
  expect(response.status).toBe(200)
  return response.text()
}

describe('the metering gateway counts what the provider billed', () => {
  for (const [name, make, protocol] of [
    ['Anthropic Messages', anthropic, 'anthropic'],
    ['OpenAI Responses', openai, 'openai'],
    ['Gemini', gemini, 'gemini'],
  ] as const) {
    test(`${name}: JSON and streamed responses, prompt caching included, equal the server's own count`, async () => {
      const server = await model.start()
      gateway = await MeteringGateway.start({ upstream: server.url })
      const through = [await post(gateway.url, make(false)), await post(gateway.url, make(true)), await post(gateway.url, make(true))]
      expect(through[1]).toContain('data:')
      expect(gateway.exchanges).toHaveLength(3)
      expect(gateway.exchanges.every((exchange) => exchange.usage?.protocol === protocol && exchange.status === 200)).toBe(true)
      const billed = asTokens(server.usage)
      expect(billed.input + billed.output).toBeGreaterThan(0)
      // OpenAI's and Gemini's wire formats have no cache writes: those bill as plain input, as the server reported them.
      expect(counted(gateway)).toEqual(protocol === 'anthropic' ? billed : { ...billed, input: billed.input + billed.cacheWrite, cacheWrite: 0 })
      if (protocol !== 'gemini') expect(billed.cacheRead).toBeGreaterThan(0) // the second and third requests read the first's cache
    })
  }

  test('the model the provider names is kept with each request', async () => {
    const server = await model.start()
    gateway = await MeteringGateway.start({ upstream: server.url })
    await post(gateway.url, anthropic(true))
    await post(gateway.url, openai(false))
    expect(gateway.exchanges.map((exchange) => exchange.usage?.model)).toEqual(['claude-sonnet-4-5', 'gpt-5.5'])
  })

  test('a response without usage (a health check, an unknown route) is forwarded and counts as no request', async () => {
    const server = await model.start()
    gateway = await MeteringGateway.start({ upstream: server.url })
    expect((await fetch(`${gateway.url}/`, { method: 'HEAD' })).status).toBe(200)
    expect((await fetch(`${gateway.url}/v9/nothing`)).status).toBe(404)
    expect(gateway.exchanges.map((exchange) => [exchange.status, exchange.usage])).toEqual([
      [200, null],
      [404, null],
    ])
  })
})

describe('forwarding', () => {
  test("the upstream's base path is the gateway's, the harness's headers replace the agent's, the answer passes unchanged", async () => {
    const seen: Array<{ url: string | undefined; key: string | undefined; encoding: string | undefined }> = []
    const answer = JSON.stringify({ type: 'message', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'ünïcødé' }], usage: { input_tokens: 7, output_tokens: 3 } })
    const upstream = http.createServer((request, response) => {
      seen.push({ url: request.url, key: request.headers['x-api-key'] as string | undefined, encoding: request.headers['accept-encoding'] })
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_1' }).end(answer)
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()))
    try {
      const port = (upstream.address() as AddressInfo).port
      gateway = await MeteringGateway.start({ upstream: `http://127.0.0.1:${port}/api/`, headers: { 'X-Api-Key': 'held-by-the-harness' } })
      expect(gateway.url).toBe(`http://127.0.0.1:${gateway.port}/api`)
      const response = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'the-agents-own', 'accept-encoding': 'gzip, br' }, body: '{}' })
      expect(response.headers.get('x-request-id')).toBe('req_1')
      expect(await response.text()).toBe(answer)
      expect(seen).toEqual([{ url: '/api/v1/messages', key: 'held-by-the-harness', encoding: 'identity' }])
      expect(gateway.exchanges[0]!.usage).toEqual({ protocol: 'anthropic', model: 'claude-haiku-4-5', tokens: { input: 7, output: 3, cacheRead: 0, cacheWrite: 0 } })
    } finally {
      upstream.close()
    }
  })

  test('an unreachable provider is a 502 that names it, recorded without usage', async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    gateway = await MeteringGateway.start({ upstream: `http://127.0.0.1:${port}` })
    const response = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' })
    expect(response.status).toBe(502)
    expect(response.headers.get('content-type')).toBe('text/plain')
    expect(await response.text()).toMatch(/metering gateway: the model provider could not be reached/)
    expect(gateway.exchanges).toEqual([{ method: 'POST', path: '/v1/messages', status: null, usage: null }])
  })
})

/** A plain upstream on 127.0.0.1 answering each request with `answer`, the requests' headers kept; `close()` after. */
async function upstreamServer(answer: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  const seen: http.IncomingHttpHeaders[] = []
  const server = http.createServer((request, response) => {
    seen.push(request.headers)
    answer(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as AddressInfo).port
  return { url: `http://127.0.0.1:${port}`, port, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe('what the gateway passes on, and what it does not', () => {
  test('refuses an upstream that is not http(s), naming it', async () => {
    await expect(MeteringGateway.start({ upstream: 'ftp://127.0.0.1/models' })).rejects.toThrow('the metering gateway forwards to http(s) URLs, not ftp://127.0.0.1/models')
  })

  test('keeps the base path without its trailing slashes', async () => {
    gateway = await MeteringGateway.start({ upstream: 'http://127.0.0.1:9/v1//' })
    expect(gateway.url).toBe(`http://127.0.0.1:${gateway.port}/v1`)
  })

  test("drops the agent's hop-by-hop headers and names the upstream as host; keeps the rest, the method and the body", async () => {
    const bodies: string[] = []
    const upstream = await upstreamServer((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
      request.on('end', () => {
        bodies.push(body)
        response.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive', 'keep-alive': 'timeout=99' }).end('{}')
      })
    })
    try {
      gateway = await MeteringGateway.start({ upstream: upstream.url })
      const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const request = http.request(`${gateway!.url}/v1/messages`, {
          method: 'PUT',
          headers: { 'proxy-connection': 'keep-alive', te: 'trailers', trailer: 'x-sum', 'keep-alive': 'timeout=5', 'x-agent': 'kept', 'content-type': 'application/json' },
        })
        request.once('response', resolve).once('error', reject)
        request.end('{"a":1}')
      })
      answer.resume()
      await new Promise((resolve) => answer.once('end', resolve))
      const [headers] = upstream.seen
      for (const name of ['proxy-connection', 'te', 'trailer', 'keep-alive']) expect(headers, name).not.toHaveProperty(name)
      expect(headers).toMatchObject({ host: `127.0.0.1:${upstream.port}`, 'x-agent': 'kept', 'content-type': 'application/json', 'accept-encoding': 'identity' })
      expect(bodies).toEqual(['{"a":1}'])
      expect(gateway.exchanges).toEqual([{ method: 'PUT', path: '/v1/messages', status: 200, usage: null }])
      // The upstream's own connection headers stay between it and the gateway.
      expect(answer.headers['keep-alive']).not.toBe('timeout=99')
    } finally {
      await upstream.close()
    }
  })

  test('close() ends a request still waiting on the upstream (the agent gets a reset) rather than waiting for it', async () => {
    const held: http.ServerResponse[] = []
    const upstream = await upstreamServer((_, response) => held.push(response))
    try {
      gateway = await MeteringGateway.start({ upstream: upstream.url })
      const pending = fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' })
      await waitFor(() => held.length === 1, 'the request to reach the upstream')
      await gateway.close()
      gateway = undefined
      await expect(pending).rejects.toThrow()
    } finally {
      for (const response of held) response.destroy()
      await upstream.close()
    }
  })
})

/** A 127.0.0.1 certificate no machine trusts (self-signed, made once with openssl for these tests; valid to 2126). */
const untrusted = {
  key: readFileSync(new URL('../fixtures/tls/key.pem', import.meta.url)),
  cert: readFileSync(new URL('../fixtures/tls/cert.pem', import.meta.url)),
}

/** Resolves with what connecting to `host`:`port` gave: 'connected', or the error's code. */
function connectTo(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port })
    socket.once('connect', () => {
      socket.destroy()
      resolve('connected')
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })
}

/** A server started on `host` port 0, resolved when it listens; `stop()` closes it and its connections. */
async function listening(server: http.Server | https.Server, host: string) {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { port, stop }
}

describe('where the gateway listens and what it reaches', () => {
  test('it listens on 127.0.0.1 alone: the one socket the kernel lists as listening on its port', async () => {
    gateway = await MeteringGateway.start({ upstream: 'http://127.0.0.1:9' })
    expect(await connectTo('127.0.0.1', gateway.port)).toBe('connected')
    const port = gateway.port.toString(16).toUpperCase().padStart(4, '0')
    // /proc/net/tcp and tcp6: `sl local_address rem_address st …`, an address as hex, 0A the LISTEN state.
    const listeners = ['/proc/net/tcp', '/proc/net/tcp6']
      .flatMap((file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(1) : []))
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1]?.endsWith(`:${port}`) && fields[3] === '0A')
      .map((fields) => fields[1])
    expect(listeners).toStrictEqual([`0100007F:${port}`])
  })

  test('an https upstream is reached over TLS, its certificate checked: one the machine does not trust is a 502 that says so', async () => {
    const reached: string[] = []
    const upstream = https.createServer(untrusted, (request, response) => {
      reached.push(request.url ?? '')
      response.end('{}')
    })
    const { port, stop } = await listening(upstream, '127.0.0.1')
    try {
      gateway = await MeteringGateway.start({ upstream: `https://127.0.0.1:${port}/v1` })
      const response = await fetch(`${gateway.url}/messages`, { method: 'POST', body: '{}' })
      expect(response.status).toBe(502)
      expect(await response.text()).toMatch(/could not be reached \(self[- ]signed certificate[;)]/)
      expect(reached).toEqual([])
      expect(gateway.exchanges).toEqual([{ method: 'POST', path: '/v1/messages', status: null, usage: null }])
    } finally {
      await stop()
    }
  })

  test('an IPv6 upstream is reached at its address without the brackets', async (ctx) => {
    const upstream = http.createServer((request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ seen: request.headers.host })))
    const started = await listening(upstream, '::1').catch((error: NodeJS.ErrnoException) => error)
    if (started instanceof Error) {
      if (started.code === 'EADDRNOTAVAIL' || started.code === 'EAFNOSUPPORT') return ctx.skip('this machine has no IPv6 loopback')
      throw started
    }
    const { port, stop } = started
    try {
      gateway = await MeteringGateway.start({ upstream: `http://[::1]:${port}` })
      const response = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ seen: `[::1]:${port}` })
    } finally {
      await stop()
    }
  })

  test("an upstream without a port is reached on its scheme's own (80 for http)", async () => {
    gateway = await MeteringGateway.start({ upstream: 'http://127.0.0.1/v1' })
    const response = await fetch(`${gateway.url}/messages`, { method: 'POST', body: '{}' })
    // Nothing listens on port 80 of a test machine: the refusal names the port the gateway tried.
    expect(response.status).toBe(502)
    expect(await response.text()).toContain('ECONNREFUSED 127.0.0.1:80)')
  })
})

describe('how the gateway reads an answer it passes on', () => {
  const usageEvent = (output: number) => `data: ${JSON.stringify({ type: 'message_delta', usage: { output_tokens: output } })}`
  const start = `data: ${JSON.stringify({ type: 'message_start', message: { model: 'claude-haiku-4-5', usage: { input_tokens: 5, output_tokens: 1 } } })}\n\n`

  test('an event stream is told by its content type in any case, and its last event counts without a blank line after it', async () => {
    const body = `${start}${usageEvent(21)}`
    const upstream = await upstreamServer((_, response) => response.writeHead(200, { 'content-type': 'Text/Event-Stream; charset=UTF-8' }).end(body))
    try {
      gateway = await MeteringGateway.start({ upstream: upstream.url })
      const response = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' })
      expect(await response.text()).toBe(body)
      expect(gateway.exchanges[0]!.usage).toEqual({ protocol: 'anthropic', model: 'claude-haiku-4-5', tokens: { input: 5, output: 21, cacheRead: 0, cacheWrite: 0 } })
    } finally {
      await upstream.close()
    }
  })

  test('a JSON answer is read up to 32 MiB: one of exactly that size counts, one a byte longer is passed on whole and counts as no usage', async () => {
    const cap = 32 * 1024 * 1024
    const json = JSON.stringify({ type: 'message', model: 'claude-haiku-4-5', usage: { input_tokens: 3, output_tokens: 4 } })
    // The usage last, so a body cut at the cap is no JSON.
    const padded = (size: number) => Buffer.concat([Buffer.alloc(size - json.length, ' '), Buffer.from(json)])
    let size = cap
    const upstream = await upstreamServer((_, response) => {
      const body = padded(size)
      response.writeHead(200, { 'content-type': 'application/json' })
      // In pieces, as a provider's answer arrives: the cap is checked per piece.
      for (let at = 0; at < body.length; at += 1024 * 1024) response.write(body.subarray(at, at + 1024 * 1024))
      response.end()
    })
    try {
      gateway = await MeteringGateway.start({ upstream: upstream.url })
      const exact = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' })
      expect((await exact.arrayBuffer()).byteLength).toBe(cap)
      size = cap + 1
      const over = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' })
      expect(Buffer.from(await over.arrayBuffer()).equals(padded(cap + 1))).toBe(true)
      expect(gateway.exchanges.map((exchange) => exchange.usage?.tokens ?? null)).toEqual([{ input: 3, output: 4, cacheRead: 0, cacheWrite: 0 }, null])
    } finally {
      await upstream.close()
    }
  })

  test('an upstream that fails after its answer began cuts the agent off rather than leaving it waiting, counting what it streamed', async () => {
    const upstream = await upstreamServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write(start, () => response.socket?.destroy())
    })
    try {
      gateway = await MeteringGateway.start({ upstream: upstream.url })
      const response = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' })
      expect(response.status).toBe(200)
      await expect(response.text()).rejects.toThrow()
      // What the stream reported before it broke is what the provider billed.
      expect(gateway.exchanges).toEqual([
        {
          method: 'POST',
          path: '/v1/messages',
          status: 200,
          usage: { protocol: 'anthropic', model: 'claude-haiku-4-5', tokens: { input: 5, output: 1, cacheRead: 0, cacheWrite: 0 } },
        },
      ])
    } finally {
      await upstream.close()
    }
  })

  test('an upstream that resets its connection mid-answer is recorded once, and the agent is cut off', async () => {
    const upstream = await upstreamServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write(start, () => response.socket?.resetAndDestroy())
    })
    try {
      gateway = await MeteringGateway.start({ upstream: upstream.url })
      const response = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', body: '{}' })
      // The gateway cuts the agent off in the same turn as it records (both come before the agent sees the reset).
      await expect(response.text()).rejects.toThrow()
      // Node 24 reports both the request's error and the reply's end: the second must not count the request again.
      expect(gateway.exchanges).toHaveLength(1)
      expect(gateway.exchanges[0]!.method).toBe('POST')
    } finally {
      await upstream.close()
    }
  })

  test('an agent that abandons its request mid-body has the upstream request ended too', async () => {
    const upstreamEnded: boolean[] = []
    const upstream = await upstreamServer((request) => {
      request.resume()
      request.once('close', () => upstreamEnded.push(request.complete))
    })
    try {
      gateway = await MeteringGateway.start({ upstream: upstream.url })
      const request = http.request(`${gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } })
      request.on('error', () => {})
      request.write('{"messages": [')
      await waitFor(() => upstream.seen.length === 1, 'the request to reach the upstream')
      request.destroy()
      await waitFor(() => upstreamEnded.length === 1, "the upstream's request to end")
      expect(upstreamEnded).toEqual([false])
    } finally {
      await upstream.close()
    }
  })
})

describe('reading usage', () => {
  const stream = [
    'event: message_start',
    `data: ${JSON.stringify({ type: 'message_start', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 40, output_tokens: 1 } } })}`,
    '',
    'event: content_block_delta',
    `data: ${JSON.stringify({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'ünïcødé' } })}`,
    '',
    'event: message_delta',
    `data: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 57 } })}`,
    '',
    '',
  ].join('\r\n')

  test('an Anthropic stream cut anywhere gives the same usage: message_start, then message_delta’s final output count', () => {
    for (const size of [1, 3, 17, stream.length]) {
      const reader = new UsageReader()
      const splitter = new EventStreamSplitter((value) => reader.add(value))
      for (let at = 0; at < stream.length; at += size) splitter.push(stream.slice(at, at + size))
      splitter.end()
      expect(reader.usage).toEqual({ protocol: 'anthropic', model: 'claude-sonnet-4-5', tokens: { input: 12, output: 57, cacheRead: 40, cacheWrite: 300 } })
    }
  })

  test('OpenAI counts cached tokens inside input_tokens; Gemini inside promptTokenCount, thoughts as output', () => {
    const openaiReader = new UsageReader()
    openaiReader.add({ type: 'response.completed', response: { model: 'gpt-5.5', usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 60 }, output_tokens: 9 } } })
    expect(openaiReader.usage?.tokens).toEqual({ input: 40, output: 9, cacheRead: 60, cacheWrite: 0 })
    const geminiReader = new UsageReader()
    geminiReader.add([
      { usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 1 } },
      { modelVersion: 'gemini-2.5-flash', usageMetadata: { promptTokenCount: 50, cachedContentTokenCount: 20, candidatesTokenCount: 8, thoughtsTokenCount: 4 } },
    ])
    expect(geminiReader.usage).toEqual({ protocol: 'gemini', model: 'gemini-2.5-flash', tokens: { input: 30, output: 12, cacheRead: 20, cacheWrite: 0 } })
  })

  test('a response that reports nothing has no usage', () => {
    const reader = new UsageReader()
    reader.add({ type: 'error', error: { message: 'overloaded' } })
    reader.add('not an object')
    expect(reader.usage).toBeNull()
  })
})
