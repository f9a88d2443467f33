import { formatTable } from '../format/table.ts'
import type { RecordedRun, RunRecord } from './record.ts'

/** One arm's recorded runs at a glance. */
export interface ArmSummary {
  readonly arm: string
  readonly runs: number
  readonly solved: number
  readonly timeouts: number
  /** Mean cost per run in USD (null with no runs). */
  readonly meanCostUsd: number | null
}

/** Runs, solved runs, timeouts and mean cost per arm, in the given arm order (arms with no runs included). */
export function summariseArms(records: readonly RecordedRun[], arms: readonly string[]): ArmSummary[] {
  return arms.map((arm) => {
    const own = records.filter((record) => record.arm === arm)
    const cost = own.reduce((sum, record) => sum + record.costUsd, 0)
    return {
      arm,
      runs: own.length,
      solved: own.filter((record) => record.solved).length,
      timeouts: own.filter((record) => record.outcome === 'timeout').length,
      meanCostUsd: own.length === 0 ? null : cost / own.length,
    }
  })
}

/** The per-arm summary as an aligned text table. */
export function formatArmSummary(summaries: readonly ArmSummary[]): string {
  return formatTable([
    ['arm', 'runs', 'solved', 'timeouts', 'mean cost'],
    ...summaries.map((s) => [s.arm, String(s.runs), String(s.solved), String(s.timeouts), s.meanCostUsd === null ? '—' : `$${s.meanCostUsd.toFixed(4)}`]),
  ])
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')
}

/** The one-line summary of a run, shown beside its case and as it is recorded: outcome, cost, turns. */
export function runSummary(record: RunRecord): string {
  const turns = record.turns === null ? '' : ` · ${record.turns} turn${record.turns === 1 ? '' : 's'}`
  const retries = record.harnessRetries.length === 0 ? '' : ` · ${record.harnessRetries.length} harness retr${record.harnessRetries.length === 1 ? 'y' : 'ies'}`
  return `${record.outcome} · $${record.costUsd.toFixed(4)}${turns}${retries}`
}
