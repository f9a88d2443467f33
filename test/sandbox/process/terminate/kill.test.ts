import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { readFile, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { killProcessGroup } from '../../../../src/sandbox/process/terminate/kill.ts'
import { processGroupAlive } from '../../../../src/sandbox/process/tree.ts'
import { alive } from '../../../helpers/alive.ts'
import { waitFor } from '../../../helpers/wait-for.ts'

// Real processes and signals. The test starts its group with node:child_process itself, so
// the kill is tested apart from the runner that normally starts what it kills.

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kill-test-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Starts `script` as a group leader and waits until `ready` (a member wrote its pid file, or the leader has a child). */
async function started(script: string, ready: (leader: number) => boolean, env: Record<string, string> = {}): Promise<number> {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } })
  child.unref()
  await waitFor(() => ready(child.pid!), 'the group to start')
  return child.pid!
}

const wrote = (file: string) => () => existsSync(file) && readFileSync(file, 'utf8').trim() !== ''
const hasChild = (leader: number) => readFileSync(`/proc/${leader}/task/${leader}/children`, 'utf8').trim() !== ''

test('SIGTERM first; a member that ignores it is killed after the grace', async () => {
  const pidFile = path.join(dir, 'stubborn.pid')
  const pgid = await started(`bash -c 'trap "" TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done' & wait`, wrote(pidFile))
  const stubborn = Number((await readFile(pidFile, 'utf8')).trim())
  const begun = Date.now()
  await killProcessGroup(pgid, 400)
  expect(Date.now() - begun).toBeGreaterThanOrEqual(400)
  expect(alive(stubborn)).toBe(false)
  expect(processGroupAlive(pgid)).toBe(false)
})

test('a group that obeys SIGTERM ends without waiting for the grace', async () => {
  const pgid = await started('sleep 60 & wait', hasChild)
  const begun = Date.now()
  await killProcessGroup(pgid, 10_000)
  expect(Date.now() - begun).toBeLessThan(5_000)
  expect(processGroupAlive(pgid)).toBe(false)
})

test("a process that left the group with setsid is found by the run's tag", async () => {
  const pidFile = path.join(dir, 'escaped.pid')
  const tag = 'kill-test-tag'
  const pgid = await started(`setsid bash -c 'echo $$ > ${pidFile}; exec sleep 60' & wait`, wrote(pidFile), { TASK_OUTCOME_RUN_TAG: tag })
  const escaped = Number((await readFile(pidFile, 'utf8')).trim())
  await killProcessGroup(pgid, 300, tag)
  expect(alive(escaped)).toBe(false)
  expect(processGroupAlive(pgid, tag)).toBe(false)
})
