import { armTimeout } from './timeout.ts'
import { onCancel } from './cancel.ts'
import { DEFAULT_KILL_GRACE_MS, killProcessGroup } from './kill.ts'

/**
 * The one termination policy of every process the harness starts, composed
 * from its parts (`kill.ts`: the run's whole tree, SIGTERM, grace, SIGKILL;
 * `timeout.ts`: the wall-clock limit; `cancel.ts`: the abort signal). Past
 * the limit or on abort the whole tree is killed; when the leader exits on
 * its own, whatever it left running is killed too, so no process of a run
 * outlives it.
 */

/** What ends a process besides its own exit. */
export interface TerminationOptions {
  /** Wall-clock limit; past it the whole tree is killed and `timedOut` is true. Undefined: no limit. */
  readonly timeoutMs?: number
  /** Aborting kills the whole tree (`aborted` is true). */
  readonly signal?: AbortSignal
  /** Between SIGTERM and SIGKILL (default 2 s). */
  readonly killGraceMs?: number
}

/** The termination of one started process (its group `pgid`, its tag `tag`). */
export interface Termination {
  /** True once the wall-clock limit killed the tree. */
  readonly timedOut: boolean
  /** True once the abort signal killed the tree. */
  readonly aborted: boolean
  /** Kills the whole tree (once; later calls return the same promise). */
  kill(): Promise<void>
  /** Disarms the timeout and the abort listener, then kills whatever the leader left; resolves when nothing of the run lives. */
  settle(): Promise<void>
}

/** Arms the policy for a process that has just started as the leader of group `pgid`. */
export function terminate(pgid: number, tag: string, options: TerminationOptions): Termination {
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS
  let killing: Promise<void> | undefined
  const state = { timedOut: false, aborted: false }
  const kill = () => (killing ??= killProcessGroup(pgid, graceMs, tag))
  const disarmTimeout = armTimeout(options.timeoutMs, () => {
    state.timedOut = true
    void kill()
  })
  const stopListening = onCancel(options.signal, () => {
    state.aborted = true
    void kill()
  })
  return {
    get timedOut() {
      return state.timedOut
    },
    get aborted() {
      return state.aborted
    },
    kill,
    async settle() {
      disarmTimeout()
      stopListening()
      await kill()
    },
  }
}

export { DEFAULT_KILL_GRACE_MS, killProcessGroup } from './kill.ts'
export { armTimeout } from './timeout.ts'
export { onCancel } from './cancel.ts'
