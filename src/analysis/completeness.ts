import type { RecordedRun } from '../runs/record.ts'

/** A (task, arm) and the seeds in question. */
export interface RunGap {
  readonly task: string
  readonly arm: string
  readonly seeds: readonly number[]
}

/** Whether the recorded runs are exactly the expected ones (the missing-data rule). */
export interface Completeness {
  /** True when every expected run is recorded and nothing else is. */
  readonly complete: boolean
  /** Expected runs not recorded. */
  readonly missing: number
  readonly missingRuns: readonly RunGap[]
  /** Recorded runs of the analysed arms outside the expected set (another seed, another task). */
  readonly unexpected: number
  readonly unexpectedRuns: readonly RunGap[]
  /** Analysed arms with no recorded run at all. */
  readonly armsWithoutRuns: readonly string[]
  /** Tasks none of whose planned runs is recorded (by id). */
  readonly tasksWithoutRuns: readonly string[]
  /** Seeds missing from every planned (task, arm) of the other tasks (ascending): a shard or a seed never run. */
  readonly seedsMissingEverywhere: readonly number[]
}

/** A run's place in the experiment: what the plan lists and a record identifies. */
export interface RunIdentity {
  readonly task: string
  readonly arm: string
  readonly seed: number
}

/** Every (task, arm, seed) for the given tasks, arms and seeds 1..seeds (or the listed seeds). */
export function expectedRuns(tasks: readonly string[], arms: readonly string[], seeds: number | readonly number[]): RunIdentity[] {
  const seedList = typeof seeds === 'number' ? Array.from({ length: seeds }, (_, i) => i + 1) : seeds
  return tasks.flatMap((task) => arms.flatMap((arm) => seedList.map((seed) => ({ task, arm, seed }))))
}

/** task → arm → seeds: membership without building a string key per run. */
type RunIndex = Map<string, Map<string, Set<number>>>

function indexRuns(runs: readonly RunIdentity[], arms: ReadonlySet<string>): RunIndex {
  const index: RunIndex = new Map()
  for (const run of runs) {
    if (!arms.has(run.arm)) continue
    let byArm = index.get(run.task)
    if (byArm === undefined) index.set(run.task, (byArm = new Map()))
    let seeds = byArm.get(run.arm)
    if (seeds === undefined) byArm.set(run.arm, (seeds = new Set()))
    seeds.add(run.seed)
  }
  return index
}

function holds(index: RunIndex, run: RunIdentity): boolean {
  return index.get(run.task)?.get(run.arm)?.has(run.seed) === true
}

/** Groups runs by (task, arm): tasks by id, arms in the given order, seeds ascending. */
function gaps(runs: readonly RunIdentity[], arms: readonly string[]): RunGap[] {
  const armOrder = new Map(arms.map((arm, index) => [arm, index]))
  const grouped = new Map<string, { task: string; arm: string; seeds: number[] }>()
  for (const run of runs) {
    const id = `${run.task}\u0000${run.arm}`
    let gap = grouped.get(id)
    if (gap === undefined) grouped.set(id, (gap = { task: run.task, arm: run.arm, seeds: [] }))
    gap.seeds.push(run.seed)
  }
  return [...grouped.values()]
    .map((gap) => ({ ...gap, seeds: gap.seeds.sort((a, b) => a - b) }))
    .sort((a, b) => (a.task < b.task ? -1 : a.task > b.task ? 1 : (armOrder.get(a.arm) ?? 0) - (armOrder.get(b.arm) ?? 0)))
}

/**
 * The missing-data rule: a verdict needs every (task, arm) to hold the same
 * complete set of seeds. Compares the records of the analysed arms with the
 * expected runs (the plan, restricted to those arms) and lists both what is
 * missing and what should not be there. Timeouts are recorded runs (unsolved
 * at the budget cap), so they never count as missing.
 */
export function checkCompleteness(records: readonly RecordedRun[], expected: readonly RunIdentity[], arms: readonly string[]): Completeness {
  const analysed = new Set(arms)
  const expectedIndex = indexRuns(expected, analysed)
  const recordedIndex = indexRuns(records, analysed)
  const missing = expected.filter((run) => analysed.has(run.arm) && !holds(recordedIndex, run))
  const unexpected = records.filter((record) => analysed.has(record.arm) && !holds(expectedIndex, record)).map(({ task, arm, seed }) => ({ task, arm, seed }))
  const armsWithRuns = new Set(records.filter((record) => analysed.has(record.arm)).map((record) => record.arm))
  const plannedByTask = new Map<string, number>()
  const missingByTask = new Map<string, number>()
  for (const run of expected) if (analysed.has(run.arm)) plannedByTask.set(run.task, (plannedByTask.get(run.task) ?? 0) + 1)
  for (const run of missing) missingByTask.set(run.task, (missingByTask.get(run.task) ?? 0) + 1)
  const tasksWithoutRuns = [...missingByTask]
    .filter(([task, count]) => count === plannedByTask.get(task))
    .map(([task]) => task)
    .sort()
  const whole = new Set(tasksWithoutRuns)
  const rest = expected.filter((run) => analysed.has(run.arm) && !whole.has(run.task))
  const restMissing = new Set(missing.filter((run) => !whole.has(run.task)).map((run) => run.seed))
  const seedsMissingEverywhere = [...restMissing]
    .filter((seed) => {
      const planned = rest.filter((run) => run.seed === seed)
      return planned.length > 0 && planned.every((run) => !holds(recordedIndex, run))
    })
    .sort((a, b) => a - b)
  return {
    tasksWithoutRuns,
    seedsMissingEverywhere,
    complete: missing.length === 0 && unexpected.length === 0,
    missing: missing.length,
    missingRuns: gaps(missing, arms),
    unexpected: unexpected.length,
    unexpectedRuns: gaps(unexpected, arms),
    armsWithoutRuns: arms.filter((arm) => !armsWithRuns.has(arm)),
  }
}
