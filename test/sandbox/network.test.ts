import { readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { hostileProject, tagged } from './hostile-agent.ts'

// The sandbox's network: its own namespace; the model's loopback port forwarded; everything else refused (and
// counted when it goes through the proxy, the only way out).

function server(answer: string): Promise<{ server: http.Server; port: number; hits: string[] }> {
  const hits: string[] = []
  const made = http.createServer((request, response) => {
    hits.push(request.url ?? '')
    response.end(answer)
  })
  return new Promise((resolve) => made.listen(0, '127.0.0.1', () => resolve({ server: made, port: (made.address() as AddressInfo).port, hits })))
}

let model: Awaited<ReturnType<typeof server>>
let other: Awaited<ReturnType<typeof server>>
beforeAll(async () => {
  model = await server('model says hello\n')
  other = await server('the answer key\n')
})
afterAll(() => {
  model.server.close()
  other.server.close()
})

// bash's /dev/tcp: an HTTP/1.0 request to host:port (through a proxy when the request line is an absolute URL).
const request = (label: string, port: number, line: string) => `
if exec 3<>/dev/tcp/127.0.0.1/${port}; then
  printf '${line}\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n' >&3
  timeout 5 cat <&3 | tr -d '\\r' | sed 's/^/${label} /'
  exec 3<&-
else
  echo "${label} REFUSED"
fi`

describe("a sandboxed agent's network", () => {
  test('reaches the model it was given, while a second local server it was not allowed is refused, and the proxy counts the try', async () => {
    const project = await hostileProject(
      () =>
        [
          request('MODEL', model.port, 'GET /v1/messages HTTP/1.0'),
          request('DIRECT', other.port, 'GET /direct HTTP/1.0'),
          request('PROXIED', 3128, `GET http://127.0.0.1:${other.port}/via-proxy HTTP/1.0`),
          request('TUNNEL', 3128, 'CONNECT github.com:443 HTTP/1.0'),
        ].join('\n'),
      { agentOptions: { loopbackPorts: [model.port] } },
    )
    const { record, transcript, artifacts } = await project.run()
    expect(tagged(transcript, 'MODEL ')).toContain('model says hello')
    expect(model.hits).toContain('/v1/messages')
    expect(tagged(transcript, 'DIRECT ')).toEqual(['REFUSED'])
    expect(tagged(transcript, 'PROXIED ')[0]).toMatch(/403/)
    expect(tagged(transcript, 'TUNNEL ')[0]).toMatch(/403/)
    expect(other.hits).toEqual([])
    expect(record.sandbox).toEqual({
      denied: { read: null, write: null, network: 2 },
      examples: [`GET http://127.0.0.1:${other.port}`, 'CONNECT github.com:443'],
      egress: [],
    })
    expect(await readFile(path.join(artifacts, 'sandbox-denials.txt'), 'utf8')).toContain('CONNECT github.com:443')
  })

  test('reaches an allowed host through the proxy', async () => {
    const project = await hostileProject(() => request('ALLOWED', 3128, `GET http://127.0.0.1:${other.port}/allowed HTTP/1.0`), {
      sandbox: { allow: [`127.0.0.1:${other.port}`] },
    })
    const { record, transcript } = await project.run()
    expect(tagged(transcript, 'ALLOWED ')).toContain('the answer key')
    expect(other.hits).toContain('/allowed')
    expect(record.sandbox?.denied.network).toBe(0)
    // On the books: the host it reached, one connection, bytes both ways (not a model API: no model path).
    expect(record.sandbox?.egress).toEqual([{ host: '127.0.0.1', connections: 1, bytesUp: expect.any(Number), bytesDown: expect.any(Number), modelApi: false }])
    expect(record.sandbox!.egress[0]!.bytesDown).toBeGreaterThan('the answer key'.length)
  })

  test('survives a malformed stream from the agent: CONNECT x:99999, origin form, a huge header and garbage are each refused and counted, and the model still answers', async () => {
    const project = await hostileProject(
      () =>
        [
          request('BADPORT', 3128, 'CONNECT x:99999 HTTP/1.0'),
          request('ORIGIN', 3128, 'GET /origin-form HTTP/1.0'),
          request('HUGE', 3128, `GET http://127.0.0.1:${model.port}/ HTTP/1.0\\r\\nX-Big: ${'a'.repeat(20000)}`),
          `for i in $(seq 1 40); do exec 3<>/dev/tcp/127.0.0.1/3128 && { head -c 64 /dev/urandom | tr -d '\\n' >&3; timeout 20 cat <&3 >/dev/null; exec 3<&-; }; done`,
          request('MODEL', model.port, 'GET /after-the-stream HTTP/1.0'),
        ].join('\n'),
      { agentOptions: { loopbackPorts: [model.port] } },
    )
    const { record, transcript } = await project.run()
    expect(tagged(transcript, 'BADPORT ')[0]).toMatch(/403/)
    expect(tagged(transcript, 'ORIGIN ')[0]).toMatch(/400/)
    expect(tagged(transcript, 'HUGE ')[0]).toMatch(/431/)
    expect(tagged(transcript, 'MODEL ')).toContain('model says hello')
    expect(model.hits).toContain('/after-the-stream')
    expect(record.outcome).toBe('unsolved')
    expect(record.sandbox?.denied.network).toBe(3 + 40)
    expect(record.sandbox?.examples.slice(0, 3)).toEqual([
      'CONNECT x:99999 (malformed target)',
      'GET /origin-form (not an absolute http URL)',
      'malformed request (HPE_HEADER_OVERFLOW)',
    ])
  })
})
