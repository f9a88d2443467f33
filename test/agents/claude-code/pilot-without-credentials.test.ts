import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createExperimentFixture, repoRoot, type ExperimentFixture } from '../../helpers/experiment-fixture.ts'
import { smoke } from '../../../tasks/pilot/experiment.ts'

// The pilot/smoke template as a user first meets it: real task folders, the
// template's own spec (real Claude Code, its arms, its env allowlist), and no
// credentials. Vitest runs it for real; the first run must stop at once with
// the CLI's own message, as a harness failure, and nothing may be recorded.

let fixture: ExperimentFixture
beforeAll(async () => {
  fixture = await createExperimentFixture([
    { id: '001-first', starting: { 'value.txt': 'wrong\n' }, verify: 'grep -qx right value.txt', solve: 'echo right > value.txt' },
    { id: '002-second', starting: { 'value.txt': 'wrong\n' }, verify: 'grep -qx right value.txt', solve: 'echo right > value.txt' },
  ])
  const pilotDir = path.join(repoRoot, 'tasks/pilot')
  const arms = Object.fromEntries(
    Object.entries(smoke.arms).map(([name, arm]) => {
      const files = 'setup' in arm ? Object.fromEntries(Object.entries(arm.setup.files).map(([to, from]) => [to, path.resolve(pilotDir, from)])) : {}
      return [name, { ...arm, ...('setup' in arm ? { setup: { ...arm.setup, files } } : {}) }]
    }),
  )
  const { name: _name, output: _output, tasks: _tasks, ...spec } = smoke
  await fixture.writeExperiment({ ...spec, arms, tasks: { dir: '.', first: 2 }, name: 'fixture' })
})

afterAll(async () => {
  await import('node:fs/promises').then(({ rm }) => rm(fixture.root, { recursive: true, force: true }))
})

test('without credentials the first run fails fast with "Not logged in", as a harness failure; nothing is recorded', async () => {
  const started = Date.now()
  const result = await fixture.vitest([], { env: { ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: '' } })
  const elapsed = Date.now() - started
  expect(result.exitCode).not.toBe(0)
  expect(result.all).toContain('Not logged in')
  expect(result.all).toContain('auth')
  // Not retried: an auth failure cannot be helped by another attempt (the template allows 3, 30 s apart).
  expect(result.all).not.toContain('retrying')
  expect(elapsed).toBeLessThan(90_000)
  expect(await fixture.runs()).toEqual([])
})
