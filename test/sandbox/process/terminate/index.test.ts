import { spawn } from 'node:child_process'
import { expect, test } from 'vitest'
import { DEFAULT_KILL_GRACE_MS, terminate } from '../../../../src/sandbox/process/terminate/index.ts'
import { liveRunProcesses, processGroupAlive } from '../../../../src/sandbox/process/tree.ts'
import { waitFor } from '../../../helpers/wait-for.ts'

// The composed policy on a real process group (started here with node:child_process, apart from the runner).

/** A process group of a shell and its `sleep`, both ignoring SIGTERM when `ignoreTerm` is set. */
function group(ignoreTerm = false): number {
  const child = spawn('bash', ['-c', `${ignoreTerm ? "trap '' TERM; " : ''}sleep 60 & wait`], { detached: true, stdio: 'ignore' })
  child.unref()
  return child.pid!
}

test('past the limit the whole tree is killed, with no one asking, and the termination says it timed out', async () => {
  const pgid = group()
  const termination = terminate(pgid, 'no-tag', { timeoutMs: 100, killGraceMs: 200 })
  await waitFor(() => !processGroupAlive(pgid), 'the group to be killed at the limit', 10_000)
  expect(termination.timedOut).toBe(true)
  expect(termination.aborted).toBe(false)
})

test('an abort kills the whole tree, with no one asking, and says so', async () => {
  const pgid = group()
  const controller = new AbortController()
  const termination = terminate(pgid, 'no-tag', { timeoutMs: 60_000, signal: controller.signal, killGraceMs: 200 })
  controller.abort()
  await waitFor(() => !processGroupAlive(pgid), 'the group to be killed on abort', 10_000)
  expect(termination.aborted).toBe(true)
  expect(termination.timedOut).toBe(false)
  await termination.settle()
})

test('the tree is killed once: every call of kill returns the same promise', async () => {
  const termination = terminate(group(), 'no-tag', { killGraceMs: 200 })
  const first = termination.kill()
  expect(termination.kill()).toBe(first)
  await first
  expect(termination.kill()).toBe(first)
})

test('the grace before SIGKILL is the one given, not the default', async () => {
  const pgid = group(true)
  // Both up, so the trap is set before the SIGTERM.
  await waitFor(() => liveRunProcesses(pgid)?.length === 2, 'the shell and its sleep to start', 10_000)
  const termination = terminate(pgid, 'no-tag', { killGraceMs: 100 })
  const started = Date.now()
  await termination.kill()
  expect(processGroupAlive(pgid)).toBe(false)
  expect(Date.now() - started).toBeLessThan(DEFAULT_KILL_GRACE_MS)
})

test('settling also stops listening for the abort signal: an abort after it is not recorded', async () => {
  const controller = new AbortController()
  const termination = terminate(group(), 'no-tag', { signal: controller.signal, killGraceMs: 200 })
  await termination.settle()
  controller.abort()
  expect(termination.aborted).toBe(false)
})

test('settling (the leader ended) disarms the limit and kills what is left', async () => {
  const pgid = group()
  const termination = terminate(pgid, 'no-tag', { timeoutMs: 300, killGraceMs: 200 })
  await termination.settle()
  expect(processGroupAlive(pgid)).toBe(false)
  await new Promise((resolve) => setTimeout(resolve, 400))
  expect(termination.timedOut).toBe(false)
})
