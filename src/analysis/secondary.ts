import type { RecordedRun } from '../runs/record.ts'
import { mean } from '../stats/descriptive.ts'
import { quantileSorted } from '../stats/quantile.ts'
import { roundUsd } from './costs.ts'
import type { TaskArmTable } from './task-summary.ts'

/** A per-run measure summarised over an arm's runs that carry it. */
export interface RunMeasure {
  readonly mean: number
  readonly median: number
  /** Runs that carried the measure (agents without turns or tool calls record null; a run that never edited has no tool calls before its first edit). */
  readonly runs: number
  /** The arm's runs: `runs` of `of` are behind the measure. */
  readonly of: number
}

/** The secondary endpoints of one arm: reported, not tested. */
export interface ArmSecondary {
  readonly tasks: number
  readonly solvedTasks: number
  readonly runs: number
  readonly solvedRuns: number
  readonly timeouts: number
  /** Σ over tasks of the arm's mean cost per task (timeouts at the budget cap). */
  readonly totalCostUsd: number
  /** totalCostUsd / solvedTasks: what one solved task costs in this arm (null when none was solved); it rests on `solvedTasks` of `tasks`. */
  readonly costPerSolvedTaskUsd: number | null
  /** Tool calls before the first edit: the exploration a context tool is meant to shorten. */
  readonly toolCallsBeforeFirstEdit: RunMeasure | null
  readonly turns: RunMeasure | null
  readonly wallSeconds: RunMeasure | null
  /** Runs whose changes touched a gold file, of the runs on tasks that name gold files. */
  readonly goldFileTouched: { readonly runs: number; readonly of: number } | null
}

function measure(runs: readonly RecordedRun[], pick: (run: RecordedRun) => number | null | undefined): RunMeasure | null {
  const values: number[] = []
  for (const run of runs) {
    const value = pick(run)
    if (typeof value === 'number' && Number.isFinite(value)) values.push(value)
  }
  if (values.length === 0) return null
  // A typed sort (no comparator, a tenth of the cost on an arm's 50,000 runs); + 0 turns −0 into 0, so it orders as compareNumbers does.
  const sorted = Float64Array.from(values, (value) => value + 0).sort()
  return { mean: mean(values)!, median: quantileSorted(sorted, 0.5), runs: values.length, of: runs.length }
}

/** The secondary endpoints of every arm, in the given arm order. */
export function secondaryEndpoints(table: TaskArmTable, arms: readonly string[]): Record<string, ArmSecondary> {
  const result: Record<string, ArmSecondary> = {}
  const tasks = [...table.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (const arm of arms) {
    const summaries = tasks.map((task) => table.get(task)!.get(arm)).filter((summary) => summary !== undefined)
    const runs = summaries.flatMap((summary) => summary.runs)
    let total = 0
    for (const summary of summaries) total += summary.meanCostUsd
    const totalCostUsd = roundUsd(total)
    const solvedTasks = summaries.filter((summary) => summary.solved).length
    const gold = runs.filter((run) => typeof run.goldFileTouched === 'boolean')
    result[arm] = {
      tasks: summaries.length,
      solvedTasks,
      runs: runs.length,
      solvedRuns: runs.filter((run) => run.outcome === 'solved').length,
      timeouts: runs.filter((run) => run.outcome === 'timeout').length,
      totalCostUsd,
      costPerSolvedTaskUsd: solvedTasks === 0 ? null : roundUsd(totalCostUsd / solvedTasks),
      toolCallsBeforeFirstEdit: measure(runs, (run) => run.toolCallsBeforeFirstEdit),
      turns: measure(runs, (run) => run.turns),
      wallSeconds: measure(runs, (run) => (typeof run.wallMs === 'number' ? run.wallMs / 1000 : null)),
      goldFileTouched: gold.length === 0 ? null : { runs: gold.filter((run) => run.goldFileTouched === true).length, of: gold.length },
    }
  }
  return result
}
