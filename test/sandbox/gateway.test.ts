import http from 'node:http'
import type { AddressInfo } from 'node:net'
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
