import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { costsDisagree } from '../../../src/analysis/cost-summary.ts'
import { chargedCostUsd } from '../../../src/analysis/task-summary.ts'
import { hostileProject } from '../../sandbox/hostile-agent.ts'

// A `command` agent that calls its model through the run's metering gateway (`options.modelApi`, the gateway's URL
// in TASK_OUTCOME_MODEL_URL) and then under-reports what it spent: the record keeps both costs, the analysis
// charges the metered one and flags the run. The model is a small Anthropic-speaking server of the test's own,
// on 127.0.0.1, that bills every request 40,000 input and 2,000 output tokens (claude-sonnet-4-5: $0.15 a request).

let model: http.Server
let port: number
let served = 0
beforeAll(async () => {
  model = http.createServer((request, response) => {
    request.resume()
    request.once('end', () => {
      served += 1
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({ type: 'message', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'right' }], usage: { input_tokens: 40_000, output_tokens: 2_000 } }),
      )
    })
  })
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', () => resolve()))
  port = (model.address() as AddressInfo).port
})
afterAll(() => {
  model.close()
})

/** Two model requests through the gateway, then the fix; the appended result line claims $0.01. */
const callsTwice = `
for i in 1 2; do
  curl -sf -X POST "$TASK_OUTCOME_MODEL_URL/v1/messages" -H 'content-type: application/json' -d '{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[]}' >/dev/null || exit 3
done
echo right > value.txt
`

describe('a command agent metered through its gateway', () => {
  test('under-reports ($0.01 against $0.30 billed): the record keeps both, the analysis charges the metered cost and flags it', async () => {
    const project = await hostileProject(callsTwice, { agentOptions: { modelApi: `http://127.0.0.1:${port}` } })
    const before = served
    const { record } = await project.run()
    expect(served - before).toBe(2)
    expect(record.outcome).toBe('solved')
    expect(record.costUsd).toBe(0.01)
    expect(record.costSource).toBe('agent')
    expect(record.metered).toEqual({
      requests: 2,
      tokens: { input: 80_000, output: 4_000, cacheRead: 0, cacheWrite: 0 },
      costUsd: expect.closeTo(0.3, 9),
      models: ['claude-sonnet-4-5'],
    })
    expect(chargedCostUsd(record, 2)).toBeCloseTo(0.3, 9)
    expect(costsDisagree(record.costUsd, record.metered!.costUsd)).toBe(true)
  })

  test('without modelApi the command keeps its own report: metered null, no gateway variable', async () => {
    const project = await hostileProject('test -z "${TASK_OUTCOME_MODEL_URL:-}" || exit 4\necho right > value.txt\n')
    const { record } = await project.run()
    expect(record.outcome).toBe('solved')
    expect(record.metered).toBeNull()
    expect(chargedCostUsd(record, 2)).toBe(0.01)
  })
})
