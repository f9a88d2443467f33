import { SpecError, DataError } from '../errors.ts'
import type { RecordedRun } from '../runs/record.ts'
import { holmAdjust } from '../stats/holm.ts'
import type { McNemarResult } from '../stats/mcnemar.ts'
import { compareArms, type Comparison, type EffectResult } from './comparison.ts'
import { checkCompleteness, type RunGap, type RunIdentity } from './completeness.ts'
import { decide, NO_VERDICT, type Decision } from './decision.ts'
import { secondaryEndpoints, type ArmSecondary } from './secondary.ts'
import type { ChangeLogEntry } from '../experiment/schema.ts'
import { analysedArms, type AnalysisSettings, type Contamination, type EarlierSpecRuns, type PromptAllowanceRow, type Stage } from './settings.ts'
import { checkRecords, summariseTaskArms } from './task-summary.ts'
import { skillChecks, type SkillChecks } from './skill-checks.ts'

/**
 * `report.json`: DESIGN's fields first, in DESIGN's order, then additions.
 *
 * DESIGN's fields describe the experiment's comparison when it has two arms
 * (one treatment against the control). With more arms, each treatment is
 * compared with the control in `comparisons` (Holm-adjusted primary p); the
 * top-level `primary`, `mcnemar`, `effect` and `power` are then null,
 * `solved` and `secondary` cover every arm, and `decision.verdict` is
 * `supported` when at least one arm's claim is (Holm controls the
 * family-wise error), with `criteria` null (each comparison has its own).
 *
 * On incomplete data (`complete: false`) nothing is computed: the
 * statistics are null, the verdict is `no verdict`, and `missingRuns` /
 * `unexpectedRuns` say exactly what keeps the data from matching the plan.
 */
export interface AnalysisReport {
  readonly experiment: string
  /** Every expected run recorded, and nothing else. */
  readonly complete: boolean
  /** Expected runs not recorded. */
  readonly missing: number
  /** Tasks in the experiment (expected). */
  readonly tasks: number
  /** Seeds per (task, arm). */
  readonly seeds: number
  /** The analysed arms: the control first. */
  readonly arms: readonly string[]
  readonly primary: { readonly statistic: number; readonly p: number; readonly n: number; readonly exact: true } | null
  /** Tasks solved (by a majority of seeds) per arm. */
  readonly solved: Readonly<Record<string, number>> | null
  readonly mcnemar: McNemarResult | null
  readonly effect: EffectResult | null
  readonly decision: Decision
  readonly secondary: Readonly<Record<string, ArmSecondary>> | null
  readonly power: { readonly sigma: number | null; readonly tasksNeeded: number | null } | null
  /** Additions to DESIGN's fields. */
  readonly stage: Stage | null
  readonly control: string
  readonly treatments: readonly string[]
  /** The decision rule's parameters as applied (the spec's, or CLI overrides). */
  readonly parameters: {
    readonly alpha: number
    readonly margin: number
    readonly resamples: number
    readonly bootstrapSeed: number | string
    readonly power: number
    readonly effect: number
    readonly budgetUsd: number | null
  }
  readonly missingRuns: readonly RunGap[]
  /** Recorded runs of the analysed arms that the plan does not hold (they too keep a verdict back). */
  readonly unexpected: number
  readonly unexpectedRuns: readonly RunGap[]
  /** Analysed arms without a single recorded run. */
  readonly armsWithoutRuns: readonly string[]
  /** Each treatment against the control, in `treatments` order (empty when incomplete). */
  readonly comparisons: readonly Comparison[]
  /** Skill experiments: the design's checks (negative control near zero, `full` against `target`); null otherwise or when incomplete. */
  readonly skillChecks: SkillChecks | null
  /** The pre-registration's change log, oldest first. */
  readonly changeLog: readonly ChangeLogEntry[]
  /** Runs recorded under earlier spec hashes: kept in runs.jsonl, not analysed here (never pooled). */
  readonly earlierSpecs: readonly EarlierSpecRuns[]
  /** Tasks fixed on or before the model's training cutoff (reported, not judged); null when the spec names no cutoff. */
  readonly contamination: Contamination | null
  /** Gold module names the prompts were allowed to use, each with its task and reason. */
  readonly promptAllowances: readonly PromptAllowanceRow[]
}

function checkSettings(settings: AnalysisSettings): void {
  if (settings.treatments.length === 0) throw new SpecError(`no arm to compare with the control "${settings.control}": name a treatment arm`)
  if (settings.treatments.includes(settings.control)) {
    throw new SpecError(`arm "${settings.control}" is the control; it cannot also be a treatment`)
  }
  if (new Set(settings.treatments).size !== settings.treatments.length) throw new SpecError(`an arm is named twice among the treatments: ${settings.treatments.join(', ')}`)
}

/**
 * Applies "The analysis" (DESIGN) to recorded runs: the missing-data rule
 * against the expected runs (the plan), then per-task means and majority
 * solved, d and r, the exact Wilcoxon and McNemar tests, the bootstrap
 * effect, Holm over several arms, the decision rule, secondary endpoints and
 * power. Pure: the same records and settings give the same report. Records
 * of arms not analysed are ignored.
 */
export function analyzeRuns(records: readonly RecordedRun[], settings: AnalysisSettings, expected: readonly RunIdentity[]): AnalysisReport {
  checkSettings(settings)
  checkRecords(records, settings)
  const arms = analysedArms(settings)
  const armSet = new Set(arms)
  const expectedHere = expected.filter((run) => armSet.has(run.arm))
  const completeness = checkCompleteness(records, expectedHere, arms)
  const taskCount = new Set(expectedHere.map((run) => run.task)).size
  const seedCount = new Set(expectedHere.map((run) => run.seed)).size
  if (taskCount === 0 && completeness.unexpected === 0) {
    throw new DataError(`nothing to analyse: no run of ${arms.join(', ')} is expected or recorded`)
  }
  const base = {
    experiment: settings.experiment,
    complete: completeness.complete,
    missing: completeness.missing,
    tasks: taskCount,
    seeds: seedCount,
    arms,
  }
  const additions = {
    stage: settings.stage,
    control: settings.control,
    treatments: settings.treatments,
    parameters: {
      alpha: settings.alpha,
      margin: settings.margin,
      resamples: settings.resamples,
      bootstrapSeed: settings.bootstrapSeed,
      power: settings.power,
      effect: settings.effect,
      budgetUsd: settings.budgetUsd,
    },
    missingRuns: completeness.missingRuns,
    unexpected: completeness.unexpected,
    unexpectedRuns: completeness.unexpectedRuns,
    armsWithoutRuns: completeness.armsWithoutRuns,
  }
  const preregistration = {
    changeLog: settings.changeLog ?? [],
    earlierSpecs: settings.earlierSpecs ?? [],
    contamination: settings.contamination ?? null,
    promptAllowances: settings.promptAllowances ?? [],
  }
  if (!completeness.complete) {
    return {
      ...base,
      primary: null,
      solved: null,
      mcnemar: null,
      effect: null,
      decision: NO_VERDICT,
      secondary: null,
      power: null,
      ...additions,
      comparisons: [],
      skillChecks: null,
      ...preregistration,
    }
  }

  const table = summariseTaskArms(records, arms, settings.budgetUsd)
  const statistics = settings.treatments.map((treatment) => compareArms(table, settings, treatment))
  const adjusted = holmAdjust(statistics.map((comparison) => comparison.primary.p))
  const comparisons: Comparison[] = statistics.map((comparison, index) => {
    const pAdjusted = adjusted[index]!
    const { statistic, p, n, zeros, ties, exact } = comparison.primary
    return {
      treatment: comparison.treatment,
      control: comparison.control,
      tasks: comparison.tasks,
      primary: { statistic, p, pAdjusted, n, zeros, ties, exact },
      solved: comparison.solved,
      mcnemar: comparison.mcnemar,
      effect: comparison.effect,
      decision: decide({
        p: pAdjusted,
        alpha: settings.alpha,
        intervalUpper: comparison.effect.ci95[1],
        solvedTreatment: comparison.solved.treatment,
        solvedControl: comparison.solved.control,
        margin: settings.margin,
      }),
      power: comparison.power,
      perTask: comparison.perTask,
    }
  })
  const secondary = secondaryEndpoints(table, arms)
  const solved = Object.fromEntries(arms.map((arm) => [arm, secondary[arm]!.solvedTasks]))
  const only = comparisons.length === 1 ? comparisons[0]! : undefined
  const anySupported = comparisons.some((comparison) => comparison.decision.supported)
  return {
    ...base,
    primary: only === undefined ? null : { statistic: only.primary.statistic, p: only.primary.p, n: only.primary.n, exact: true },
    solved,
    mcnemar: only?.mcnemar ?? null,
    effect: only?.effect ?? null,
    decision: only?.decision ?? { verdict: anySupported ? 'supported' : 'not supported', supported: anySupported, criteria: null },
    secondary,
    power: only === undefined ? null : { sigma: only.power.sigma, tasksNeeded: only.power.tasksNeeded },
    ...additions,
    comparisons,
    skillChecks: skillChecks(table, settings),
    ...preregistration,
  }
}
