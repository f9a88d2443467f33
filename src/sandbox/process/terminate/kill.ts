import { processGroupAlive, signalRun } from '../tree.ts'

/** Between SIGTERM and SIGKILL when a run is killed, unless the caller says otherwise. */
export const DEFAULT_KILL_GRACE_MS = 2000

const POLL_MS = 25

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Kills every process of a run: group `pgid` and, given `tag`, every process
 * carrying it. SIGTERM, then SIGKILL to whatever is left after `graceMs`.
 * Resolves when no live process of the run remains.
 */
export async function killProcessGroup(pgid: number, graceMs: number = DEFAULT_KILL_GRACE_MS, tag?: string): Promise<void> {
  // Stryker disable next-line StringLiteral: '' is Node's default signal, SIGTERM.
  signalRun(pgid, tag, 'SIGTERM')
  const deadline = Date.now() + graceMs
  // Stryker disable next-line EqualityOperator: `<=` differs only in the deadline's own millisecond.
  while (Date.now() < deadline) {
    if (!processGroupAlive(pgid, tag)) return
    await sleep(POLL_MS)
  }
  // The bound is for a process SIGKILL cannot end (one in uninterruptible sleep), which no test can make: without it,
  // or with another, every killable process still ends on the first tries.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,UpdateOperator: see above.
  for (let tries = 0; tries < 200 && processGroupAlive(pgid, tag); tries++) {
    signalRun(pgid, tag, 'SIGKILL')
    await sleep(POLL_MS)
  }
}
