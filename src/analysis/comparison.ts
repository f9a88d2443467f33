import { bootstrapMedianInterval } from '../stats/bootstrap.ts'
import { sampleStandardDeviation } from '../stats/descriptive.ts'
import { hodgesLehmann } from '../stats/hodges-lehmann.ts'
import { signedRankMinimumP, signedRankTasksForAlpha } from '../stats/signed-rank-floor.ts'
import { mcnemarExact, type McNemarResult } from '../stats/mcnemar.ts'
import { tasksNeeded } from '../stats/sample-size.ts'
import { wilcoxonSignedRank } from '../stats/wilcoxon.ts'
import { relativeChange, roundUsd } from './costs.ts'
import type { Decision } from './decision.ts'
import type { AnalysisSettings } from './settings.ts'
import type { TaskArmSummary, TaskArmTable } from './task-summary.ts'

/** One arm on one task, as the report shows it. */
export interface ArmOnTask {
  readonly meanCostUsd: number
  readonly solvedSeeds: number
  readonly seeds: number
  readonly solved: boolean
}

/** One task's pair: the same task under the control and the treatment. */
export interface TaskPair {
  readonly task: string
  readonly control: ArmOnTask
  readonly treatment: ArmOnTask
  /** d = mean cost (treatment) − mean cost (control), USD. */
  readonly d: number
  /** r = d / mean cost (control); +∞ when the control cost nothing and the treatment something. */
  readonly r: number
}

/** The primary endpoint: exact one-sided Wilcoxon signed-rank on d. */
export interface PrimaryResult {
  /** V: the sum of the ranks of the positive d. */
  readonly statistic: number
  /** p = P(V ≤ v), exact. */
  readonly p: number
  /** p after Holm's adjustment over all arms compared with the control (equal to p with one). */
  readonly pAdjusted: number
  /** Tasks in the test (zero d dropped). */
  readonly n: number
  readonly zeros: number
  readonly ties: boolean
  readonly exact: true
  /** The smallest p the exact test can reach at this n, Holm-adjusted over the claim family: min(1, m · 2⁻ⁿ). */
  readonly minimumP: number
  /** m: the claim arms Holm adjusts over (1 when one arm is compared). */
  readonly family: number
  /** The fewest non-zero differences at which p < α is reachable (m · 2⁻ⁿ < α). */
  readonly tasksForAlpha: number
}

/**
 * The Hodges–Lehmann estimate of the median d (USD) beside the test: the
 * median of the Walsh averages, with the 95% interval found by inverting the
 * exact signed-rank test (ties included), or a labelled normal approximation
 * beyond 60 tasks.
 */
export interface HodgesLehmannResult {
  readonly estimate: number
  readonly ci95: readonly [number, number]
  readonly method: 'exact' | 'normal approximation'
}

/** The effect size: the median of r with its seeded percentile bootstrap interval over tasks. */
export interface EffectResult {
  readonly medianRelativeChange: number
  readonly ci95: readonly [number, number]
  readonly resamples: number
  readonly seed: number | string
}

/** What the pilot says about the confirmatory run's size. */
export interface PowerResult {
  /** Sample standard deviation of r over the tasks with a finite r (null with fewer than two). */
  readonly sigma: number | null
  /** n = ⌈((z₁₋α + z_power)·σ/δ)² / 0.955⌉ (null when σ is). */
  readonly tasksNeeded: number | null
  /** Tasks σ was computed over (a task whose control cost nothing has no finite r). */
  readonly tasksUsed: number
  /** The formula's n before the floor (null when σ is). */
  readonly formulaTasks: number | null
  /** The floor: the fewest tasks with which the exact test (Holm over the family) can reach α at all; `tasksNeeded` is never below it. */
  readonly minimumTasks: number
}

/** Below this many tasks a pilot's σ is too unstable to size a run on; `power` and the reports warn. */
export const PILOT_MIN_TASKS = 5

/** One treatment arm against the control. */
export interface Comparison {
  readonly treatment: string
  readonly control: string
  readonly tasks: number
  readonly primary: PrimaryResult
  /** Tasks solved by each arm, and treatment − control. */
  readonly solved: { readonly control: number; readonly treatment: number; readonly difference: number }
  readonly mcnemar: McNemarResult
  readonly effect: EffectResult
  readonly hodgesLehmann: HodgesLehmannResult
  readonly decision: Decision
  readonly power: PowerResult
  /** Every task's pair, tasks by id. */
  readonly perTask: readonly TaskPair[]
}

function armOnTask(summary: TaskArmSummary): ArmOnTask {
  return { meanCostUsd: summary.meanCostUsd, solvedSeeds: summary.solvedSeeds, seeds: summary.seeds.length, solved: summary.solved }
}

/**
 * The tasks' pairs, matched by task id (never by list position). Tasks
 * missing either arm are left out; the missing-data rule has already refused
 * a verdict when any are.
 */
export function pairTasks(table: TaskArmTable, control: string, treatment: string): TaskPair[] {
  const tasks = [...table.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const pairs: TaskPair[] = []
  for (const task of tasks) {
    const byArm = table.get(task)!
    const c = byArm.get(control)
    const t = byArm.get(treatment)
    if (c === undefined || t === undefined) continue
    const d = roundUsd(t.meanCostUsd - c.meanCostUsd)
    pairs.push({ task, control: armOnTask(c), treatment: armOnTask(t), d, r: relativeChange(d, c.meanCostUsd) })
  }
  return pairs
}

/**
 * σ of r and the next run's size, from a comparison's pairs: the formula's
 * n, raised to the floor where the exact test (Holm over `family` claim arms)
 * could not reach α at all.
 */
export function powerFromPairs(pairs: readonly TaskPair[], settings: Pick<AnalysisSettings, 'alpha' | 'power' | 'effect'>, family = 1): PowerResult {
  const finite = pairs.map((pair) => pair.r).filter(Number.isFinite)
  const sigma = sampleStandardDeviation(finite)
  const formulaTasks = sigma === null ? null : tasksNeeded({ sigma, effect: settings.effect, alpha: settings.alpha, power: settings.power })
  const minimumTasks = signedRankTasksForAlpha(settings.alpha, family)
  return {
    sigma,
    tasksNeeded: formulaTasks === null ? null : Math.max(formulaTasks, minimumTasks),
    tasksUsed: finite.length,
    formulaTasks,
    minimumTasks,
  }
}

/** The Hodges–Lehmann estimate of d, computed on whole nano-dollars (the analysis's cost grid) so ties stay exact. */
export function hodgesLehmannUsd(differences: readonly number[]): HodgesLehmannResult {
  const result = hodgesLehmann(differences.map((d) => Math.round(d * 1e9)))
  const usd = (nano: number) => (Number.isFinite(nano) ? roundUsd(nano / 1e9) : nano)
  return { estimate: usd(result.estimate), ci95: [usd(result.interval[0]), usd(result.interval[1])], method: result.method }
}

/** Everything about one comparison except what depends on the other comparisons (Holm, hence the decision). */
export type ComparisonStatistics = Omit<Comparison, 'decision' | 'primary'> & { readonly primary: Omit<PrimaryResult, 'pAdjusted'> }

/**
 * The endpoints for one treatment against the control, on complete data:
 * primary (exact Wilcoxon on d, with its floor at this n and Holm m),
 * co-primary (exact McNemar on per-task solved), effect (median r, bootstrap
 * over tasks), the Hodges–Lehmann estimate of d, and power.
 */
export function compareArms(table: TaskArmTable, settings: AnalysisSettings, treatment: string): ComparisonStatistics {
  const pairs = pairTasks(table, settings.control, treatment)
  if (pairs.length === 0) throw new RangeError(`compareArms: no task has runs of both ${settings.control} and ${treatment}`)
  const wilcoxon = wilcoxonSignedRank(
    pairs.map((pair) => pair.d),
    { alternative: 'less' },
  )
  const family = Math.max(1, settings.treatments.length)
  const solvedControl = pairs.filter((pair) => pair.control.solved).length
  const solvedTreatment = pairs.filter((pair) => pair.treatment.solved).length
  const b = pairs.filter((pair) => pair.treatment.solved && !pair.control.solved).length
  const c = pairs.filter((pair) => pair.control.solved && !pair.treatment.solved).length
  const interval = bootstrapMedianInterval(
    pairs.map((pair) => pair.r),
    { resamples: settings.resamples, seed: settings.bootstrapSeed },
  )
  return {
    treatment,
    control: settings.control,
    tasks: pairs.length,
    primary: {
      statistic: wilcoxon.statistic,
      p: wilcoxon.p,
      n: wilcoxon.n,
      zeros: wilcoxon.zeros,
      ties: wilcoxon.ties,
      exact: true,
      minimumP: signedRankMinimumP(wilcoxon.n, family),
      family,
      tasksForAlpha: signedRankTasksForAlpha(settings.alpha, family),
    },
    solved: { control: solvedControl, treatment: solvedTreatment, difference: solvedTreatment - solvedControl },
    mcnemar: mcnemarExact(b, c),
    effect: {
      medianRelativeChange: interval.estimate,
      ci95: [interval.lower, interval.upper],
      resamples: interval.resamples,
      seed: interval.seed,
    },
    hodgesLehmann: hodgesLehmannUsd(pairs.map((pair) => pair.d)),
    power: powerFromPairs(pairs, settings, family),
    perTask: pairs,
  }
}
