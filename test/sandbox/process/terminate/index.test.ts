import { spawn } from 'node:child_process'
import { expect, test } from 'vitest'
import { terminate } from '../../../../src/sandbox/process/terminate/index.ts'
import { processGroupAlive } from '../../../../src/sandbox/process/tree.ts'
import { waitFor } from '../../../helpers/wait-for.ts'

// The composed policy on a real process group (started here with node:child_process, apart from the runner).

function group(): number {
  const child = spawn('bash', ['-c', 'sleep 60 & wait'], { detached: true, stdio: 'ignore' })
  child.unref()
  return child.pid!
}

test('past the limit the whole tree is killed and the termination says it timed out', async () => {
  const pgid = group()
  const termination = terminate(pgid, 'no-tag', { timeoutMs: 100, killGraceMs: 200 })
  await waitFor(() => termination.timedOut, 'the limit to pass')
  await termination.kill()
  expect(termination.timedOut).toBe(true)
  expect(termination.aborted).toBe(false)
  expect(processGroupAlive(pgid)).toBe(false)
})

test('an abort kills the whole tree and says so', async () => {
  const pgid = group()
  const controller = new AbortController()
  const termination = terminate(pgid, 'no-tag', { timeoutMs: 60_000, signal: controller.signal, killGraceMs: 200 })
  controller.abort()
  await termination.kill()
  expect(termination.aborted).toBe(true)
  expect(termination.timedOut).toBe(false)
  expect(processGroupAlive(pgid)).toBe(false)
})

test('settling (the leader ended) disarms the limit and kills what is left', async () => {
  const pgid = group()
  const termination = terminate(pgid, 'no-tag', { timeoutMs: 300, killGraceMs: 200 })
  await termination.settle()
  expect(processGroupAlive(pgid)).toBe(false)
  await new Promise((resolve) => setTimeout(resolve, 400))
  expect(termination.timedOut).toBe(false)
})
