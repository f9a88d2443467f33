import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createExperimentFixture, type ExperimentFixture } from '../../helpers/experiment-fixture.ts'

// End to end through Vitest, the plugin, the executor and the reporter: the
// real Claude Code CLI against a scripted model that answers 529 overloaded to
// every call. Each run is retried (a 529 may pass), every attempt fails, the
// case fails naming the reason, and nothing reaches runs.jsonl. A session
// that works is recorded beside them, so the reporter was listening.

let fixture: ExperimentFixture
beforeAll(async () => {
  fixture = await createExperimentFixture([{ id: '001-value', starting: { 'value.txt': 'wrong\n' }, verify: 'grep -qx right value.txt', solve: 'echo right > value.txt' }])
  await fixture.writeExperiment({
    agent: { kind: 'claude-code', model: 'claude-sonnet-4-5', options: { scriptedModel: { wrongEditRate: 0 } } },
    arms: {
      working: {},
      overloaded: { agent: { options: { scriptedModel: { faults: [{ fault: { kind: 'status', status: 529 } }] } } } },
    },
    control: 'working',
    seeds: 1,
    retries: { attempts: 2, backoffSeconds: 0 },
    env: { set: { CLAUDE_CODE_MAX_RETRIES: '0' } },
  })
})

afterAll(async () => {
  await rm(fixture.root, { recursive: true, force: true })
})

test('an API failure is retried, then fails the case with its reason; only the measured run is recorded', async () => {
  const result = await fixture.vitest()
  expect(result.exitCode).not.toBe(0)
  expect(result.all).toContain('001-value › overloaded › seed 1')
  expect(result.all).toContain('api-error')
  expect(result.all).toContain('no measurement after 2 attempt(s)')
  const runs = await fixture.runs()
  expect(runs.map((run) => [run.arm, run.outcome])).toEqual([['working', 'solved']])
  expect(runs[0]!.versions).toMatchObject({ agent: expect.stringMatching(/\(Claude Code\)$/), model: 'scripted:claude-sonnet-4-5' })
})
