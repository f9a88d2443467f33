import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import path from 'node:path'
import seedrandom from 'seedrandom'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { HEADERS_DEADLINE_MS, MAX_EXAMPLES, SandboxNetwork } from '../../src/sandbox/network.ts'

// The proxy is the agent's only way out, and the agent writes every byte it reads: thousands of malformed
// requests (seeded, over the proxy's own Unix socket, nothing leaves the machine) are each refused and
// counted once, a client too slow to send its headers is dropped at its deadline, and the proxy still
// lets the allowed host through and the forwarded model port still answers.

const REQUESTS = 3000
const CONCURRENCY = 48

let model: http.Server
let modelPort: number
let network: SandboxNetwork
beforeAll(async () => {
  model = http.createServer((_request, response) => response.end('model says hello\n'))
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', () => resolve()))
  modelPort = (model.address() as AddressInfo).port
  network = await SandboxNetwork.start([`127.0.0.1:${modelPort}`])
})
afterAll(async () => {
  await network.close()
  model.close()
})

/** One malformed request of a seeded kind; none of them names an allowed destination in a valid request. */
function malformed(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const bytes = (n: number) => String.fromCharCode(...Array.from({ length: n }, () => Math.floor(random() * 256)))
  const badPort = pick(['99999', '0', '65536', '-1', '0x50', '', 'http', String(70000 + Math.floor(random() * 1e6))])
  switch (Math.floor(random() * 10)) {
    case 0:
      return `CONNECT ${pick(['x', '127.0.0.1', '[::1]', 'api.example.com'])}:${badPort} HTTP/1.1\r\n\r\n`
    case 1:
      return `CONNECT ${bytes(1 + Math.floor(random() * 30)).replace(/[\r\n ]/g, '_')}:443 HTTP/1.1\r\n\r\n`
    case 2:
      return `CONNECT 10.${Math.floor(random() * 255)}.0.1:${modelPort} HTTP/1.1\r\n\r\n`
    case 3:
      return `${pick(['GET', 'POST', 'PUT', 'DELETE'])} /${bytes(4).replace(/[^a-z]/gi, 'a')} HTTP/1.1\r\nHost: 127.0.0.1:${modelPort}\r\n\r\n`
    case 4:
      return bytes(1 + Math.floor(random() * 200))
    case 5:
      return `GET http://127.0.0.1:${modelPort}/ HTTP/1.1\r\nX-Big: ${'a'.repeat(17_000 + Math.floor(random() * 20_000))}\r\n\r\n`
    case 6:
      return `GET http://${pick(['[zz]', 'a b', '', '%%', 'x:0', `127.0.0.1:${badPort}`])}/ HTTP/1.1\r\n\r\n`
    case 7:
      return `GET http://127.0.0.1:${modelPort}/${'a'.repeat(Math.floor(random() * 40))}`
    case 8:
      return `GET https://127.0.0.1:${modelPort}/ HTTP/1.1\r\nHost: x\r\n\r\n`
    default:
      return `${bytes(3).replace(/[^A-Z]/g, 'Q')} http://127.0.0.1:${modelPort}/ HTTP/${pick(['9.9', '1', 'x', '1.1\n\n\n'])}\r\n${bytes(10)}\r\n\r\n`
  }
}

function send(socket: string, payload: string): Promise<void> {
  return new Promise((resolve) => {
    const client = net.connect(socket, () => client.end(Buffer.from(payload, 'latin1')))
    client.on('data', () => {})
    client.on('error', () => {})
    client.on('close', () => resolve())
  })
}

function proxied(socket: string, line: string): Promise<string> {
  return new Promise((resolve) => {
    let answer = ''
    const client = net.connect(socket, () => client.write(`${line}\r\nHost: x\r\nConnection: close\r\n\r\n`))
    client.on('data', (chunk) => (answer += chunk.toString()))
    client.on('error', () => {})
    client.on('close', () => resolve(answer))
  })
}

test(`${REQUESTS} malformed requests are each refused and counted, a slow client is dropped at its deadline, and the proxy still serves`, { timeout: 60_000 }, async () => {
  const proxySocket = path.join(network.socketDir, 'proxy.sock')
  const slow = new Promise<{ answer: string; afterMs: number }>((resolve) => {
    const started = Date.now()
    let answer = ''
    const client = net.connect(proxySocket, () => client.write(`GET http://127.0.0.1:${modelPort}/ HTTP/1.1\r\nHost: x\r\n`))
    client.on('data', (chunk) => (answer += chunk.toString()))
    client.on('error', () => {})
    client.on('close', () => resolve({ answer, afterMs: Date.now() - started }))
  })
  const random = seedrandom('proxy-fuzz')
  const payloads = Array.from({ length: REQUESTS }, () => malformed(random))
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < payloads.length) await send(proxySocket, payloads[next++]!)
    }),
  )
  const { answer, afterMs } = await slow
  expect(answer).toMatch(/^HTTP\/1\.1 408/)
  expect(afterMs).toBeGreaterThanOrEqual(HEADERS_DEADLINE_MS - 100)
  expect(afterMs).toBeLessThan(HEADERS_DEADLINE_MS + 5000)
  const { count, examples } = network.denials
  expect(count).toBe(REQUESTS + 1)
  expect(examples).toHaveLength(MAX_EXAMPLES)
  expect(examples.every((example) => example.length < 250 && !/[\u0000-\u001f]/.test(example))).toBe(true)

  expect(await proxied(proxySocket, `GET http://127.0.0.1:${modelPort}/v1/messages HTTP/1.1`)).toContain('model says hello')
  const spec = await network.spec([modelPort])
  expect(await proxied(path.join(spec.socketDir, `${modelPort}.sock`), 'GET /v1/messages HTTP/1.1')).toContain('model says hello')
  expect(network.denials.count).toBe(REQUESTS + 1)
})
