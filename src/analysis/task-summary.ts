import { DataError } from '../errors.ts'
import type { RecordedRun } from '../runs/record.ts'
import { roundUsd } from './costs.ts'
import { endpointCostUsd, type CostEndpoint } from './cost-summary.ts'
import type { AnalysisSettings } from './settings.ts'
import { runLabel } from '../shared/run-label.ts'

/** One arm on one task: its runs (one per seed) reduced the way the pre-registration says. */
export interface TaskArmSummary {
  readonly task: string
  readonly arm: string
  /** The seeds recorded, ascending. */
  readonly seeds: readonly number[]
  /** The records, by seed. */
  readonly runs: readonly RecordedRun[]
  /** Mean cost over the seeds (timeouts at the budget cap), rounded to a billionth of a dollar. */
  readonly meanCostUsd: number
  readonly solvedSeeds: number
  /** Solved when more than half of its seeds solved. */
  readonly solved: boolean
  readonly timeouts: number
}

/** task → arm → summary. */
export type TaskArmTable = ReadonlyMap<string, ReadonlyMap<string, TaskArmSummary>>

/**
 * What a run costs in the analysis: its cost under the pre-registered
 * endpoint (the metered cost where it was metered, by default), except that
 * a timeout is charged the arm's budget cap when the cap is known (the worst
 * case, so a failure can never make an arm look cheaper).
 */
export function chargedCostUsd(record: RecordedRun, budgetUsd: number | null, endpoint: CostEndpoint = 'metered'): number {
  return record.outcome === 'timeout' && budgetUsd !== null ? budgetUsd : endpointCostUsd(record, endpoint)
}

function describe(record: RecordedRun): string {
  return runLabel(record)
}

/**
 * Checks that every record belongs to the analysed experiment and is
 * consistent (`solved` is true exactly when `outcome` is `solved`); a
 * `DataError` names the run otherwise.
 */
export function checkRecords(records: readonly RecordedRun[], settings: AnalysisSettings): void {
  const foreign = records.find((record) => record.experiment !== settings.experiment)
  if (foreign !== undefined) {
    throw new DataError(`${describe(foreign)} belongs to experiment "${foreign.experiment}", not "${settings.experiment}": analyse one experiment's runs at a time`)
  }
  const hashes = [...new Set(records.map((record) => record.specSha256))].sort()
  if (hashes.length > 1) {
    throw new DataError(
      `the runs were recorded under ${hashes.length} different specs (${hashes.map((hash) => hash.slice(0, 12)).join(', ')}): ` +
        'a pre-registered experiment cannot change under recorded runs, so no analysis can pool them',
    )
  }
  const inconsistent = records.find((record) => record.solved !== (record.outcome === 'solved'))
  if (inconsistent !== undefined) {
    throw new DataError(`${describe(inconsistent)}: outcome "${inconsistent.outcome}" but solved ${inconsistent.solved}; the record contradicts itself`)
  }
}

/** Reduces the records of the given arms to one summary per (task, arm). */
export function summariseTaskArms(records: readonly RecordedRun[], arms: readonly string[], budgetUsd: number | null, endpoint: CostEndpoint = 'metered'): TaskArmTable {
  const wanted = new Set(arms)
  const grouped = new Map<string, Map<string, RecordedRun[]>>()
  for (const record of records) {
    if (!wanted.has(record.arm)) continue
    let byArm = grouped.get(record.task)
    if (byArm === undefined) grouped.set(record.task, (byArm = new Map()))
    let runs = byArm.get(record.arm)
    if (runs === undefined) byArm.set(record.arm, (runs = []))
    runs.push(record)
  }
  const table = new Map<string, Map<string, TaskArmSummary>>()
  for (const [task, byArm] of grouped) {
    const summaries = new Map<string, TaskArmSummary>()
    for (const [arm, unsorted] of byArm) {
      const runs = [...unsorted].sort((a, b) => a.seed - b.seed)
      let cost = 0
      for (const run of runs) cost += chargedCostUsd(run, budgetUsd, endpoint)
      const solvedSeeds = runs.filter((run) => run.outcome === 'solved').length
      summaries.set(arm, {
        task,
        arm,
        seeds: runs.map((run) => run.seed),
        runs,
        meanCostUsd: roundUsd(cost / runs.length),
        solvedSeeds,
        solved: solvedSeeds * 2 > runs.length,
        timeouts: runs.filter((run) => run.outcome === 'timeout').length,
      })
    }
    table.set(task, summaries)
  }
  return table
}
