import { seededShuffle } from '../shared/seeded-shuffle.ts'

/** One run the experiment will make, at its place in the seeded plan. */
export interface PlannedRun {
  readonly task: string
  readonly arm: string
  readonly seed: number
  /** Position in the whole plan (0-based): the record's `order`. */
  readonly order: number
}

/** A task and the arms it runs (all arms, or a condition subset for negative-control tasks). */
export interface PlanTask {
  readonly id: string
  readonly arms: readonly string[]
}

/**
 * The run plan: tasks by id, and within each task its (arm, seed) pairs in a
 * seeded random order (seed: the experiment's order seed and the task id). So
 * neither arm runs first in bulk and a task's arms run close together in time
 * (a randomised block design), whatever shard or worker the task lands on.
 */
export function planRuns(tasks: readonly PlanTask[], seeds: number, orderSeed: string | number): PlannedRun[] {
  const plan: PlannedRun[] = []
  for (const task of [...tasks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const pairs = task.arms.flatMap((arm) => Array.from({ length: seeds }, (_, i) => ({ arm, seed: i + 1 })))
    for (const pair of seededShuffle(pairs, `${orderSeed}/${task.id}`)) {
      plan.push({ task: task.id, arm: pair.arm, seed: pair.seed, order: plan.length })
    }
  }
  return plan
}
