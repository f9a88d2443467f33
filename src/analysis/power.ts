import type { RecordedRun } from '../runs/record.ts'
import { normalQuantile, WILCOXON_EFFICIENCY } from '../stats/sample-size.ts'
import { pairTasks, PILOT_MIN_TASKS, powerFromPairs, type PowerResult } from './comparison.ts'
import { checkCompleteness, type RunIdentity } from './completeness.ts'
import type { AnalysisSettings } from './settings.ts'
import { checkRecords, summariseTaskArms } from './task-summary.ts'

/** The confirmatory run's size for one treatment, with the formula's parts. */
export interface PowerAnalysis extends PowerResult {
  readonly treatment: string
  readonly control: string
  /** Tasks whose runs of both arms are complete (the others are left out). */
  readonly tasks: number
  readonly tasksLeftOut: number
  readonly alpha: number
  readonly power: number
  readonly effect: number
  readonly zAlpha: number
  readonly zPower: number
  /** ((z₁₋α + z_power)·σ/δ)² / 0.955 before rounding up (null when σ is). */
  readonly exactTasks: number | null
  /** Fewer than PILOT_MIN_TASKS tasks behind σ: too few to size a run on with confidence. */
  readonly fewTasks: boolean
  /** m: the claim arms the primary test is Holm-adjusted over (the floor depends on it). */
  readonly family: number
}

/**
 * σ of the per-task relative change and the tasks a confirmatory run needs,
 * per claim arm, for planning: unlike the verdict it uses whatever tasks
 * are complete for both arms (and says how many it left out), and it never
 * recommends fewer tasks than the exact test (Holm over the claim family)
 * needs to reach α at all.
 */
export function powerAnalysis(records: readonly RecordedRun[], settings: AnalysisSettings, expected: readonly RunIdentity[]): PowerAnalysis[] {
  checkRecords(records, settings)
  return settings.treatments.map((treatment) => {
    const arms = [settings.control, treatment]
    const completeness = checkCompleteness(records, expected, arms)
    const incomplete = new Set([...completeness.missingRuns, ...completeness.unexpectedRuns].map((gap) => gap.task))
    const allTasks = new Set(expected.filter((run) => arms.includes(run.arm)).map((run) => run.task))
    const usable = records.filter((record) => !incomplete.has(record.task))
    const pairs = pairTasks(summariseTaskArms(usable, arms, settings.budgetUsd), settings.control, treatment)
    const result = powerFromPairs(pairs, settings, Math.max(1, settings.treatments.length))
    const zAlpha = normalQuantile(1 - settings.alpha)
    const zPower = normalQuantile(settings.power)
    return {
      treatment,
      control: settings.control,
      tasks: pairs.length,
      tasksLeftOut: allTasks.size - pairs.length,
      alpha: settings.alpha,
      power: settings.power,
      effect: settings.effect,
      zAlpha,
      zPower,
      exactTasks: result.sigma === null ? null : (((zAlpha + zPower) * result.sigma) / settings.effect) ** 2 / WILCOXON_EFFICIENCY,
      fewTasks: pairs.length < PILOT_MIN_TASKS,
      family: Math.max(1, settings.treatments.length),
      ...result,
    }
  })
}
