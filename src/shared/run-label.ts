/**
 * A run's two names. The label, `<task-id> › <arm> › seed <n>`, is what every
 * message, progress line and Vitest case calls a run (filter with `-t`); the
 * key joins the same three parts with NUL, which no task id, arm or number
 * holds, for maps and sets.
 */

/** The parts that name a run within its spec. */
export interface RunName {
  readonly task: string
  readonly arm: string
  readonly seed: number
}

/** The run's label in messages and as its Vitest case name: `<task-id> › <arm> › seed <n>`. */
export function runLabel(run: RunName): string {
  return `${run.task} › ${run.arm} › seed ${run.seed}`
}

/** The run's key for maps and sets (task, arm and seed joined by NUL). */
export function runKey(run: RunName): string {
  return `${run.task}\u0000${run.arm}\u0000${run.seed}`
}
