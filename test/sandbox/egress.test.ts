import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { expectedRuns } from '../../src/analysis/completeness.ts'
import { renderReportFiles } from '../../src/analysis/conclude.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { knownModelHost, modelApiPath } from '../../src/sandbox/egress.ts'
import { settings } from '../analysis/records.ts'
import { hostileProject } from './hostile-agent.ts'

// Everything an arm reaches is on the books. Arm `a`'s setup installs a tool that calls an embedding model of its
// own (a small server of the test's, on 127.0.0.2: loopback, so nothing leaves the machine, but not the
// sandbox's 127.0.0.1, so the tool goes through the proxy like a real remote API); the agent runs it. The record's
// `sandbox.egress` holds that host and its bytes, the report has a "Reached beyond the model" section, and the
// verdict says the arm contacted a model host the other did not.

let embeddings: http.Server
let port: number
let served = 0
beforeAll(async () => {
  embeddings = http.createServer((request, response) => {
    request.resume()
    request.once('end', () => {
      served += 1
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ object: 'list', data: [{ embedding: Array.from({ length: 256 }, (_, i) => i / 256) }], usage: { total_tokens: 1200 } }))
    })
  })
  await new Promise<void>((resolve) => embeddings.listen(0, '127.0.0.2', () => resolve()))
  port = (embeddings.address() as AddressInfo).port
})
afterAll(() => {
  embeddings.close()
})

const install = (target: string) => [
  'mkdir -p "$HOME/.local/bin"',
  `printf '#!/bin/sh\\ncurl -sf -X POST http://${target}/v1/embeddings -H "content-type: application/json" -d "{\\\\"model\\\\":\\\\"voyage-3\\\\",\\\\"input\\\\":[\\\\"the repository\\\\"]}" >/dev/null\\n' > "$HOME/.local/bin/embed"`,
  'chmod +x "$HOME/.local/bin/embed"',
]
const agent = 'if [ -x "$HOME/.local/bin/embed" ]; then "$HOME/.local/bin/embed" || exit 5; "$HOME/.local/bin/embed" || exit 5; fi\necho right > value.txt\n'

describe('egress on the books', () => {
  test('a tool the arm installs calls a second model host: the record has the host and its bytes, the report and verdict say so', async () => {
    const target = `127.0.0.2:${port}`
    const project = await hostileProject(agent, { setupCommands: install(target), sandbox: { allow: [target] } })
    const before = served
    const treated = await project.run(1, 'a')
    const control = await project.run(1, 'b')
    expect(served - before).toBe(2)
    expect(treated.record.outcome).toBe('solved')
    const [entry, ...others] = treated.record.sandbox!.egress
    expect(others).toEqual([])
    expect(entry).toMatchObject({ host: '127.0.0.2', connections: 2, modelApi: true })
    expect(entry!.bytesUp).toBeGreaterThan(2 * 60)
    expect(entry!.bytesDown).toBeGreaterThan(2 * 2000) // 256 numbers a response
    expect(control.record.sandbox!.egress).toEqual([])

    const records = [treated.record, control.record]
    const report = analyzeRuns(records, settings({ experiment: 'hostile', control: 'b', treatments: ['a'], budgetUsd: 0.5 }), expectedRuns(['001-value'], ['b', 'a'], 1))
    expect(report.egress.arms.a).toEqual([{ host: '127.0.0.2', runs: 1, connections: 2, bytesUp: entry!.bytesUp, bytesDown: entry!.bytesDown, modelApi: true }])
    const markdown = renderReportFiles(report, records)['report.md']
    expect(markdown).toContain('## Reached beyond the model')
    expect(markdown).toMatch(/\|\s*a\s*\|\s*127\.0\.0\.2\s*\|\s*yes\s*\|\s*1\s*\|\s*2\s*\|/)
    expect(markdown).toContain('a contacted model or embedding host(s) b did not: 127.0.0.2; spend there is not in the cost.')
  })
})

describe('which hosts are model APIs', () => {
  test("the price table's providers by host, and model API paths over plain HTTP", () => {
    expect(['api.anthropic.com', 'api.openai.com', 'api.voyageai.com', 'generativelanguage.googleapis.com', 'api.cohere.com'].every(knownModelHost)).toBe(true)
    expect(['registry.npmjs.org', 'github.com', 'pypi.org'].some(knownModelHost)).toBe(false)
    expect(['/v1/embeddings', '/v1/messages?beta=true', '/v1beta/models/gemini-2.5-flash:generateContent', '/api/embed', '/v1/chat/completions'].every(modelApiPath)).toBe(true)
    expect(['/simple/requests/', '/lodash/-/lodash-4.17.21.tgz', '/messages-archive.html'].some(modelApiPath)).toBe(false)
  })
})
