import { bootstrapMedianInterval } from '../stats/bootstrap.ts'
import { wilcoxonSignedRank } from '../stats/wilcoxon.ts'
import { pairTasks } from './comparison.ts'
import type { AnalysisSettings } from './settings.ts'
import type { TaskArmTable } from './task-summary.ts'

/** One design check of a skill experiment: an effect that is expected, not tested for a claim. */
export interface SkillCheck {
  /** The reference arm (`control` for the negative control, `target` for `full`). */
  readonly reference: string
  readonly arm: string
  /** Tasks with both arms. */
  readonly tasks: number
  readonly medianRelativeChange: number
  readonly ci95: readonly [number, number]
  /** Two-sided exact Wilcoxon signed-rank p on the per-task cost differences. */
  readonly pTwoSided: number
  readonly solved: { readonly reference: number; readonly arm: number }
  /** What the check expects and whether the data agree. */
  readonly expectation: string
  readonly holds: boolean
}

/**
 * The checks the skills design expects (not part of the decision rule):
 * the negative control (only an irrelevant skill) should change next to
 * nothing — an equivalence check: its interval on the median relative cost
 * change lies inside ±δ (the decision rule's smallest effect of interest) and
 * it solves as many tasks as the control, within the margin; and `full` (every skill) is set against
 * `target` (only the right one), to see what the extra skills cost.
 */
export interface SkillChecks {
  readonly negativeControl: SkillCheck | null
  /** `sanity` (project settings on, no skill) against the control on the negative-control tasks: the setting alone should change next to nothing. */
  readonly sanity: SkillCheck | null
  readonly fullVsTarget: SkillCheck | null
}

/** The checks in report order. */
export function listSkillChecks(checks: SkillChecks | null): SkillCheck[] {
  return [checks?.negativeControl, checks?.sanity, checks?.fullVsTarget].filter((check): check is SkillCheck => check != null)
}

function check(
  table: TaskArmTable,
  settings: AnalysisSettings,
  reference: string,
  arm: string,
  expectation: string,
  holds: (result: Omit<SkillCheck, 'expectation' | 'holds'>) => boolean,
): SkillCheck | null {
  const pairs = pairTasks(table, reference, arm)
  if (pairs.length === 0) return null
  // Every r, infinite ones included: a free control that the arm made cost something is the largest increase, not a gap.
  const interval = bootstrapMedianInterval(
    pairs.map((pair) => pair.r),
    { resamples: settings.resamples, seed: settings.bootstrapSeed },
  )
  const result = {
    reference,
    arm,
    tasks: pairs.length,
    medianRelativeChange: interval.estimate,
    ci95: [interval.lower, interval.upper] as const,
    pTwoSided: wilcoxonSignedRank(
      pairs.map((pair) => pair.d),
      { alternative: 'two-sided' },
    ).p,
    solved: { reference: pairs.filter((pair) => pair.control.solved).length, arm: pairs.filter((pair) => pair.treatment.solved).length },
  }
  return { ...result, expectation, holds: holds(result) }
}

function nearZero(settings: AnalysisSettings, what: string): [string, (result: Omit<SkillCheck, 'expectation' | 'holds'>) => boolean] {
  return [
    `${what} changes cost by less than the smallest effect of interest (interval inside ±${Math.round(settings.effect * 100)}%) and tasks solved by at most the margin (${settings.margin})`,
    (r) => r.ci95[0] > -settings.effect && r.ci95[1] < settings.effect && Math.abs(r.solved.arm - r.solved.reference) <= settings.margin,
  ]
}

/**
 * The skill design checks, when the experiment has the conditions they need
 * (null otherwise). Design checks are never in the claim family: they say
 * whether the design behaved, not whether a claim holds.
 */
export function skillChecks(table: TaskArmTable, settings: AnalysisSettings): SkillChecks | null {
  const arms = new Set([settings.control, ...settings.treatments, ...settings.designChecks])
  if (settings.control !== 'control' || !(arms.has('negative') || arms.has('sanity') || (arms.has('full') && arms.has('target')))) return null
  return {
    negativeControl: arms.has('negative') ? check(table, settings, 'control', 'negative', ...nearZero(settings, 'an irrelevant skill')) : null,
    sanity: arms.has('sanity') ? check(table, settings, 'control', 'sanity', ...nearZero(settings, 'turning on project settings with no skill in them')) : null,
    fullVsTarget:
      arms.has('full') && arms.has('target')
        ? check(table, settings, 'target', 'full', 'every skill at once solves at least as many tasks as the target skill alone', (r) => r.solved.arm >= r.solved.reference)
        : null,
  }
}
