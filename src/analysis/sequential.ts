import { lookTaskCounts } from '../experiment/sequential-looks.ts'
import type { Sequential } from '../experiment/schema.ts'
import type { RecordedRun } from '../runs/record.ts'
import { bootstrapMedianInterval } from '../stats/bootstrap.ts'
import { sampleStandardDeviation } from '../stats/descriptive.ts'
import { futilityBoundaries, normalBoundaries } from '../stats/group-sequential-normal.ts'
import { normalQuantile, WILCOXON_EFFICIENCY } from '../stats/sample-size.ts'
import { sequentialSignedRank, type SignedRankLook } from '../stats/sequential-signed-rank.ts'
import { spendingName } from '../stats/spending.ts'
import jStat from 'jstat'
import { pairTasks, type TaskPair } from './comparison.ts'
import type { RunIdentity } from './completeness.ts'
import type { AnalysisSettings } from './settings.ts'
import { summariseTaskArms } from './task-summary.ts'

/** The two-sided coverage the fixed design's interval criterion has (95%): the repeated interval keeps it over all looks. */
const INTERVAL_CONFIDENCE = 0.95

/** A sequential design with its looks resolved against the planned tasks. */
export interface ResolvedDesign {
  /** Tasks at each look (the last is every planned task). */
  readonly looks: readonly number[]
  /** Each look's information fraction: its tasks over the planned tasks. */
  readonly fractions: readonly number[]
  readonly design: Sequential
  readonly plannedTasks: number
}

/** The looks as task counts (`lookTaskCounts`) with their information fractions. */
export function resolveDesign(design: Sequential, plannedTasks: number): ResolvedDesign {
  const looks = lookTaskCounts(design, plannedTasks)
  return { looks, fractions: looks.map((tasks) => tasks / plannedTasks), design, plannedTasks }
}

/** What the rule did at one look. */
export type LookAction = 'efficacy' | 'futility' | 'continue' | 'final'

/** One look of a sequential design, as the report shows it. */
export interface LookResult extends SignedRankLook {
  /** The looks the design has. */
  readonly of: number
  /** The tasks this look analysed, in the plan's order. */
  readonly taskIds: readonly string[]
  /** The repeated confidence interval on the median relative change at this look's level. */
  readonly interval: { readonly confidence: number; readonly ci: readonly [number, number]; readonly median: number }
  readonly solved: { readonly treatment: number; readonly control: number; readonly margin: number; readonly met: boolean }
  /** Futility at an interim look (null at the last look or without a futility rule, or with too few tasks for σ). */
  readonly futility: { readonly rule: string; readonly value: number; readonly threshold: number; readonly met: boolean } | null
  readonly action: LookAction
}

/** The sequential part of an analysis. */
export interface SequentialAnalysis {
  readonly design: {
    readonly looks: readonly number[]
    readonly fractions: readonly number[]
    readonly spending: string
    readonly futility: string | null
    readonly binding: false
  }
  /** Every look taken, in order (the last taken is the one that stopped, or the final one). */
  readonly looks: readonly LookResult[]
  /** The look that stopped the experiment early, 1-based (null: not stopped early). */
  readonly stoppedAt: number | null
  readonly stoppedFor: 'efficacy' | 'futility' | null
  /** The look whose tasks are not all recorded yet (null when every needed look is taken). */
  readonly pendingLook: number | null
  /** The tasks the verdict rests on: those of the last look taken. */
  readonly analysedTasks: readonly string[]
  /** Planned runs of the tasks after the stopping look: never run, never paid for (0 when not stopped). */
  readonly skippedRuns: number
  /** Runs recorded for tasks after the stopping look (someone ran them anyway): kept, not analysed. */
  readonly recordedAfterStop: number
  /** The stage-wise adjusted p at the look that decided (null while pending). */
  readonly adjustedP: number | null
}

function cdf(z: number): number {
  return jStat.normal.cdf(z, 0, 1)
}

/** The task ids in the plan's order (tasks by id, as the plan runs them). */
export function plannedTaskOrder(expected: readonly RunIdentity[]): string[] {
  return [...new Set(expected.map((run) => run.task))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/** A short phrase for the reports: "stopped at look 1 of 2: efficacy". */
export function stopPhrase(analysis: SequentialAnalysis): string | null {
  return analysis.stoppedAt === null ? null : `stopped at look ${analysis.stoppedAt} of ${analysis.design.looks.length}: ${analysis.stoppedFor}`
}

function futilityText(design: Sequential): string | null {
  const futility = design.futility
  if (futility === undefined) return null
  return 'conditionalPower' in futility ? `conditional power below ${futility.conditionalPower} (non-binding)` : `β-spending, ${spendingName(futility.spending)} (non-binding)`
}

/** Conditional power at look k under the design effect: the chance the last look crosses its boundary, given Zₖ (B-value form). */
export function conditionalPower(z: number, t: number, theta: number, finalBoundary: number): number {
  if (t >= 1) return z >= finalBoundary ? 1 : 0
  return 1 - cdf((finalBoundary - z * Math.sqrt(t) - theta * (1 - t)) / Math.sqrt(1 - t))
}

/**
 * Applies a pre-registered sequential design to the recorded runs, look by
 * look, mechanically: a look is taken when every planned run of its tasks
 * is recorded; it stops for efficacy when V is at or below the exact
 * boundary, the repeated interval's upper bound is below zero and the
 * solve-rate margin holds; at an interim look it stops for futility as
 * pre-registered (non-binding: the boundaries never assume it); otherwise the
 * next block of tasks runs. Pure: runs.jsonl and the plan give the same looks
 * here, in the reporter and in `analyze`.
 */
export function sequentialAnalysis(records: readonly RecordedRun[], settings: AnalysisSettings, expected: readonly RunIdentity[], treatment: string): SequentialAnalysis {
  const sequential = settings.sequential
  if (sequential == null) throw new RangeError('sequentialAnalysis: the settings hold no sequential design')
  const arms = [settings.control, treatment]
  const planned = expected.filter((run) => arms.includes(run.arm))
  const order = plannedTaskOrder(planned)
  const resolved = resolveDesign(sequential, order.length)
  const { looks, fractions } = resolved
  const recordedKeys = new Set(records.filter((record) => arms.includes(record.arm)).map((record) => `${record.task}\u0000${record.arm}\u0000${record.seed}`))
  const blockComplete = (tasks: readonly string[]) =>
    planned.filter((run) => tasks.includes(run.task)).every((run) => recordedKeys.has(`${run.task}\u0000${run.arm}\u0000${run.seed}`))
  const efficacyNormal = normalBoundaries(fractions, settings.alpha, sequential.spending)
  const intervalLevels = normalBoundaries(fractions, (1 - INTERVAL_CONFIDENCE) / 2, sequential.spending).nominal
  const results: LookResult[] = []
  let pendingLook: number | null = null
  let pairs: TaskPair[] = []
  for (let k = 0; k < looks.length; k++) {
    const taskIds = order.slice(0, looks[k]!)
    if (!blockComplete(taskIds)) {
      pendingLook = k + 1
      break
    }
    const taskSet = new Set(taskIds)
    const table = summariseTaskArms(
      records.filter((record) => taskSet.has(record.task)),
      arms,
      settings.budgetUsd,
    )
    pairs = pairTasks(table, settings.control, treatment)
    const byTask = new Map(pairs.map((pair) => [pair.task, pair]))
    const differences = taskIds.map((task) => byTask.get(task)!.d)
    const test = sequentialSignedRank({ differences, looks: looks.slice(0, k + 1), fractions: fractions.slice(0, k + 1), alpha: settings.alpha, spending: sequential.spending })
    const here = test[k]!
    const level = intervalLevels[k]!
    const bootstrap = bootstrapMedianInterval(
      pairs.map((pair) => pair.r),
      { resamples: settings.resamples, seed: settings.bootstrapSeed, probabilities: [level, 1 - level] },
    )
    const solvedTreatment = pairs.filter((pair) => pair.treatment.solved).length
    const solvedControl = pairs.filter((pair) => pair.control.solved).length
    const solved = { treatment: solvedTreatment, control: solvedControl, margin: settings.margin, met: solvedTreatment >= solvedControl - settings.margin }
    const efficacy = here.crossed && bootstrap.upper < 0 && solved.met
    const last = k === looks.length - 1
    const futility = last ? null : futilityAt(sequential, settings, pairs, here, fractions, k, efficacyNormal)
    const action: LookAction = last ? 'final' : efficacy ? 'efficacy' : futility?.met === true ? 'futility' : 'continue'
    results.push({
      ...here,
      of: looks.length,
      taskIds,
      interval: { confidence: 1 - 2 * level, ci: [bootstrap.lower, bootstrap.upper], median: bootstrap.estimate },
      solved,
      futility,
      action,
    })
    if (action !== 'continue') break
  }
  const decided = results.at(-1)
  const stoppedAt = decided !== undefined && (decided.action === 'efficacy' || decided.action === 'futility') ? decided.look : null
  const analysedTasks = decided?.taskIds ?? []
  const after = new Set(stoppedAt === null ? [] : order.slice(looks[stoppedAt - 1]!))
  return {
    design: { looks, fractions, spending: spendingName(sequential.spending), futility: futilityText(sequential), binding: false },
    looks: results,
    stoppedAt,
    stoppedFor: stoppedAt === null ? null : (decided!.action as 'efficacy' | 'futility'),
    pendingLook,
    analysedTasks,
    skippedRuns: planned.filter((run) => after.has(run.task) && !recordedKeys.has(`${run.task}\u0000${run.arm}\u0000${run.seed}`)).length,
    recordedAfterStop: records.filter((record) => arms.includes(record.arm) && after.has(record.task)).length,
    adjustedP: pendingLook === null || stoppedAt !== null ? (decided?.adjustedP ?? null) : null,
  }
}

function futilityAt(
  design: Sequential,
  settings: AnalysisSettings,
  pairs: readonly TaskPair[],
  look: SignedRankLook,
  fractions: readonly number[],
  k: number,
  efficacy: ReturnType<typeof normalBoundaries>,
): LookResult['futility'] {
  const rule = design.futility
  if (rule === undefined) return null
  const sigma = sampleStandardDeviation(pairs.map((pair) => pair.r).filter(Number.isFinite))
  if (sigma === null || sigma === 0) return null
  // The design effect on the Z scale at the planned size: E[Z_K] = δ/σ · √(0.955 · N).
  const plannedTasks = Math.round(look.tasks / fractions[k]!)
  const theta = (settings.effect / sigma) * Math.sqrt(WILCOXON_EFFICIENCY * plannedTasks)
  const z = normalQuantile(Math.min(1 - 1e-12, Math.max(1e-12, 1 - look.p)))
  if ('conditionalPower' in rule) {
    const value = conditionalPower(z, fractions[k]!, theta, efficacy.upper.at(-1)!)
    return { rule: 'conditional power', value, threshold: rule.conditionalPower, met: value < rule.conditionalPower }
  }
  const bound = futilityBoundaries(efficacy, rule.beta ?? 1 - settings.power, rule.spending, theta, k + 1)[k]!
  return { rule: 'β-spending bound (Z)', value: z, threshold: bound, met: z < bound }
}
