import seedrandom from 'seedrandom'
import type { RecordedRun } from '../../src/runs/record.ts'
import type { AnalysisSettings } from '../../src/analysis/settings.ts'
import { expectedRuns } from '../../src/analysis/completeness.ts'

/** Test helpers: records and settings for the analysis, built by hand. */

export const SPEC = 'a'.repeat(64)

/** One recorded run with the fields the analysis reads (and the secondary ones, when given). */
export function run(task: string, arm: string, seed: number, costUsd: number, outcome: 'solved' | 'unsolved' | 'timeout', extra: Partial<RecordedRun> = {}): RecordedRun {
  return {
    experiment: 'exp',
    specSha256: SPEC,
    task,
    arm,
    seed,
    outcome,
    solved: outcome === 'solved',
    costUsd,
    costSource: outcome === 'timeout' ? 'budget-cap' : 'agent',
    ...extra,
  }
}

export function settings(overrides: Partial<AnalysisSettings> = {}): AnalysisSettings {
  return {
    experiment: 'exp',
    stage: 'pilot',
    control: 'baseline',
    treatments: ['tool'],
    designChecks: [],
    departures: [],
    planChecked: true,
    budgetUsd: 2,
    alpha: 0.05,
    margin: 1,
    resamples: 2000,
    bootstrapSeed: 20261014,
    power: 0.8,
    effect: 0.15,
    ...overrides,
  }
}

/** Task ids 001..n. */
export function taskIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(i + 1).padStart(3, '0'))
}

/**
 * A complete experiment: per task, the control costs `base` (varying by
 * task) and the treatment `base · (1 + change(task))`, with seeds jittered; every
 * run solved unless `unsolved(task, arm)` says otherwise.
 */
export function experimentRecords(options: {
  tasks: number
  seeds?: number
  arms?: readonly string[]
  change: (task: number, arm: string) => number
  unsolved?: (task: number, arm: string) => boolean
  seed?: string
}): { records: RecordedRun[]; expected: ReturnType<typeof expectedRuns> } {
  const seeds = options.seeds ?? 3
  const arms = options.arms ?? ['baseline', 'tool']
  const random = seedrandom(options.seed ?? 'records')
  const ids = taskIds(options.tasks)
  const records: RecordedRun[] = []
  ids.forEach((task, index) => {
    const base = 0.2 + random() * 0.8
    for (const arm of arms) {
      const factor = arm === arms[0] ? 1 : 1 + options.change(index, arm)
      for (let seed = 1; seed <= seeds; seed++) {
        const jitter = 1 + (random() - 0.5) * 0.02
        const cost = Math.round(base * factor * jitter * 1e6) / 1e6
        records.push(
          run(task, arm, seed, cost, options.unsolved?.(index, arm) === true ? 'unsolved' : 'solved', {
            turns: 10 + seed,
            toolCalls: 5,
            toolCallsBeforeFirstEdit: 3,
            wallMs: 60_000,
            goldFileTouched: true,
          }),
        )
      }
    }
  })
  return { records, expected: expectedRuns(ids, arms, seeds) }
}

/** One task's costs (and solved seeds) in the two arms, for records built from a table. */
export interface TaskRow {
  readonly control: number
  readonly treatment: number
  /** Seeds of the treatment that did not solve (default none). */
  readonly treatmentUnsolvedSeeds?: number
  readonly controlUnsolvedSeeds?: number
}

/** Records of `baseline` and `tool` from per-task costs, every seed costing the task's figure. */
export function recordsFromTable(rows: readonly TaskRow[], seeds = 3): { records: RecordedRun[]; expected: ReturnType<typeof expectedRuns> } {
  const ids = taskIds(rows.length)
  const records = rows.flatMap((row, index) =>
    Array.from({ length: seeds }, (_, i) => i + 1).flatMap((seed) => [
      run(ids[index]!, 'baseline', seed, row.control, seed <= (row.controlUnsolvedSeeds ?? 0) ? 'unsolved' : 'solved'),
      run(ids[index]!, 'tool', seed, row.treatment, seed <= (row.treatmentUnsolvedSeeds ?? 0) ? 'unsolved' : 'solved'),
    ]),
  )
  return { records, expected: expectedRuns(ids, ['baseline', 'tool'], seeds) }
}
