import { spawn } from 'node:child_process'
import { readFile, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { killProcessGroup } from '../../../../src/sandbox/process/terminate/kill.ts'
import { processGroupAlive } from '../../../../src/sandbox/process/tree.ts'
import { alive } from '../../../helpers/alive.ts'

// Real processes and signals. The test starts its group with node:child_process itself, so
// the kill is tested apart from the runner that normally starts what it kills.

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kill-test-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function started(script: string, env: Record<string, string> = {}): Promise<number> {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } })
  child.unref()
  await new Promise((resolve) => setTimeout(resolve, 300))
  return child.pid!
}

test('SIGTERM first; a member that ignores it is killed after the grace', async () => {
  const pidFile = path.join(dir, 'stubborn.pid')
  const pgid = await started(`bash -c 'trap "" TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done' & wait`)
  const stubborn = Number((await readFile(pidFile, 'utf8')).trim())
  const begun = Date.now()
  await killProcessGroup(pgid, 400)
  expect(Date.now() - begun).toBeGreaterThanOrEqual(400)
  expect(alive(stubborn)).toBe(false)
  expect(processGroupAlive(pgid)).toBe(false)
})

test('a group that obeys SIGTERM ends without waiting for the grace', async () => {
  const pgid = await started('sleep 60 & wait')
  const begun = Date.now()
  await killProcessGroup(pgid, 10_000)
  expect(Date.now() - begun).toBeLessThan(5_000)
  expect(processGroupAlive(pgid)).toBe(false)
})

test("a process that left the group with setsid is found by the run's tag", async () => {
  const pidFile = path.join(dir, 'escaped.pid')
  const tag = 'kill-test-tag'
  const pgid = await started(`setsid bash -c 'echo $$ > ${pidFile}; exec sleep 60' & wait`, { TASK_OUTCOME_RUN_TAG: tag })
  const escaped = Number((await readFile(pidFile, 'utf8')).trim())
  await killProcessGroup(pgid, 300, tag)
  expect(alive(escaped)).toBe(false)
  expect(processGroupAlive(pgid, tag)).toBe(false)
})
