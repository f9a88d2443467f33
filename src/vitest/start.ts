import type { Vitest } from 'vitest/node'
import type { RecorderStart } from '../runs/recorder.ts'

/**
 * The plugin and the reporter share one start per experiment and Vitest
 * invocation: the experiment prepared once and its records read and verified
 * once (`readRecorded`). The plugin begins it in `configureVitest`, before
 * Vitest creates its reporters; the reporter takes the same promise (and
 * begins it itself only where the plugin did not, as in `--merge-reports`).
 * It is kept on the Vitest instance under a registered symbol, because the
 * config's copy of this module and Vitest's copy of the reporter's are
 * different modules.
 */
const STARTS = Symbol.for('task-outcome.recorder-starts')

/** The invocation's start of experiment `name`, begun by `begin` the first time it is asked for. */
export function recorderStart(vitest: Vitest, name: string, begin: () => Promise<RecorderStart>): Promise<RecorderStart> {
  const holder = vitest as unknown as Record<symbol, Map<string, Promise<RecorderStart>> | undefined>
  const starts = (holder[STARTS] ??= new Map())
  let start = starts.get(name)
  if (start === undefined) {
    start = begin()
    starts.set(name, start)
  }
  return start
}
