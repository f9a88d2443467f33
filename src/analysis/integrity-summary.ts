import type { RecordedRun } from '../runs/record.ts'
import { runLabel } from '../shared/run-label.ts'

/** One run whose change carries integrity flags: patterns that disarm tests (listed, not judged). */
export interface FlaggedRun {
  readonly task: string
  readonly arm: string
  readonly seed: number
  readonly outcome: string
  readonly flags: readonly string[]
}

/** What the report says about the integrity of the analysed runs' changes. */
export interface IntegritySummary {
  /** Runs whose change has integrity flags: the solved ones first (a flag on a solved run is the one to read), each group in record order. */
  readonly flagged: readonly FlaggedRun[]
  /** How many of them the oracle judged solved (the ones to look at first). */
  readonly solvedFlagged: number
}

/** The integrity part of a report, from the analysed arms' records, flagged solved runs first. Pure. */
export function integritySummary(records: readonly RecordedRun[], arms: readonly string[]): IntegritySummary {
  const flagged = records
    .filter((record) => arms.includes(record.arm) && (record.integrityFlags?.length ?? 0) > 0)
    .map((record) => ({ task: record.task, arm: record.arm, seed: record.seed, outcome: record.outcome, flags: record.integrityFlags! }))
  const solved = flagged.filter((run) => run.outcome === 'solved')
  return { flagged: [...solved, ...flagged.filter((run) => run.outcome !== 'solved')], solvedFlagged: solved.length }
}

/** The report's integrity sentences: how many runs changed code in ways that disarm tests, and which. */
export function integritySentences(summary: IntegritySummary): string[] {
  if (summary.flagged.length === 0) return []
  return [
    `integrity: ${summary.flagged.length} run(s) changed code in ways that can disarm tests (${summary.solvedFlagged} of them solved): a flag, not a verdict; read their diff.patch:`,
    ...summary.flagged.map((run) => `  ${runLabel(run)} (${run.outcome}): ${run.flags.join('; ')}`),
  ]
}
