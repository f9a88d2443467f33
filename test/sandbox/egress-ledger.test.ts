import net from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { EgressLedger, knownModelHost, modelApiPath } from '../../src/sandbox/egress.ts'

// The egress ledger on its own: which hosts are model APIs, and what one run's connections add up to. Real sockets
// on 127.0.0.1 stand for the proxy's connections (test/sandbox/egress.test.ts follows a whole sandboxed run).

let server: net.Server
let port: number
// The server answers each connection with as many bytes as the first byte the client wrote says (a digit).
beforeAll(async () => {
  server = net.createServer((socket) => {
    socket.once('data', (chunk) => {
      socket.end('d'.repeat(Number(chunk.toString('latin1')[0])))
    })
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as net.AddressInfo).port
})
afterAll(() => {
  server.close()
})

/**
 * One connection through the ledger: `up` bytes written (the first a digit naming how many bytes the server answers
 * with), read to the end, closed. Resolves once the socket has closed, so the ledger has added its bytes.
 */
async function connect(ledger: EgressLedger, host: string, up: string, requestPath?: string): Promise<void> {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  ledger.connection(host, socket, requestPath)
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.end(up)
  socket.resume()
  await closed
}

describe('a model API host', () => {
  test('is one the price table knows as a provider API, in any case', () => {
    expect(knownModelHost('api.openai.com')).toBe(true)
    expect(knownModelHost('API.OpenAI.com')).toBe(true)
    expect(knownModelHost('api.anthropic.com')).toBe(true)
    expect(knownModelHost('registry.npmjs.org')).toBe(false)
    expect(knownModelHost('example.com')).toBe(false)
  })
})

describe('a model API path', () => {
  test('names embeddings, messages, completions, responses or reranking, with or without a version', () => {
    for (const path of [
      '/v1/embeddings',
      '/embeddings',
      '/api/embed',
      '/v1/messages',
      '/v1/chat/completions',
      '/v1/completions',
      '/v1/responses',
      '/v2/rerank',
      '/v1beta/embed',
      '/v12/messages',
    ]) {
      expect(modelApiPath(path), path).toBe(true)
    }
  })

  test('names a Gemini method after a colon', () => {
    for (const method of ['generateContent', 'streamGenerateContent', 'embedContent', 'batchEmbedContents']) {
      expect(modelApiPath(`/v1beta/models/gemini-2.5-flash:${method}`), method).toBe(true)
      expect(modelApiPath(`/v1beta/models/gemini-2.5-flash:${method}?alt=sse`), method).toBe(true)
      expect(modelApiPath(`/v1beta/models/gemini-2.5-flash:${method}/x`), method).toBe(true)
      expect(modelApiPath(`/v1beta/models/gemini-2.5-flash:${method}s`), method).toBe(false)
    }
    expect(modelApiPath('/v1beta/models/gemini/generateContent')).toBe(false)
  })

  test('ends the name at a slash, a query or the end of the path', () => {
    expect(modelApiPath('/v1/messages?beta=true')).toBe(true)
    expect(modelApiPath('/v1/messages/batches')).toBe(true)
    expect(modelApiPath('/v1/messages-archive.html')).toBe(false)
    expect(modelApiPath('/v1/embeddingsx')).toBe(false)
    expect(modelApiPath('/v1/messages#x')).toBe(false)
  })

  test('starts the name after a slash', () => {
    expect(modelApiPath('/v1/mymessages')).toBe(false)
    expect(modelApiPath('messages')).toBe(false)
    expect(modelApiPath('/chat/messages.txt')).toBe(false)
    expect(modelApiPath('/simple/requests/')).toBe(false)
  })
})

describe('the egress ledger', () => {
  test('is empty before any connection', () => {
    expect(new EgressLedger().entries).toEqual([])
  })

  test('adds up each host’s connections and the bytes each way once each closes, one host whatever its case', async () => {
    const ledger = new EgressLedger()
    await connect(ledger, 'Example.COM', '3abc')
    expect(ledger.entries).toStrictEqual([{ host: 'example.com', connections: 1, bytesUp: 4, bytesDown: 3, modelApi: false }])
    await connect(ledger, 'example.com', '5x')
    expect(ledger.entries).toStrictEqual([{ host: 'example.com', connections: 2, bytesUp: 6, bytesDown: 8, modelApi: false }])
  })

  test('counts a connection at once, and its bytes only when it closes', async () => {
    const ledger = new EgressLedger()
    const socket = net.connect(port, '127.0.0.1')
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    ledger.connection('example.com', socket)
    expect(ledger.entries).toStrictEqual([{ host: 'example.com', connections: 1, bytesUp: 0, bytesDown: 0, modelApi: false }])
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.end('2')
    socket.resume()
    await closed
    expect(ledger.entries).toStrictEqual([{ host: 'example.com', connections: 1, bytesUp: 1, bytesDown: 2, modelApi: false }])
  })

  test('marks a host a model API when the price table knows it, or when a request to it named a model API path', async () => {
    const ledger = new EgressLedger()
    await connect(ledger, 'api.openai.com', '0')
    await connect(ledger, 'embed.internal', '0', '/simple/')
    expect(ledger.entries.map(({ host, modelApi }) => [host, modelApi])).toEqual([
      ['api.openai.com', true],
      ['embed.internal', false],
    ])
    await connect(ledger, 'embed.internal', '0', '/v1/embeddings')
    await connect(ledger, 'embed.internal', '0', '/simple/')
    expect(ledger.entries.map(({ host, modelApi }) => [host, modelApi])).toEqual([
      ['api.openai.com', true],
      ['embed.internal', true],
    ])
  })

  test('lists hosts by name, whatever the order they were reached in', async () => {
    const ledger = new EgressLedger()
    for (const host of ['m.example', 'z.example', 'a.example', 'q.example', 'b.example']) await connect(ledger, host, '0')
    expect(ledger.entries.map(({ host }) => host)).toEqual(['a.example', 'b.example', 'm.example', 'q.example', 'z.example'])
  })
})
