import { SpecError, DataError } from '../errors.ts'
import type { RecordedRun } from '../runs/record.ts'
import { integritySummary, type IntegritySummary } from './integrity-summary.ts'
import { sandboxSummary, type SandboxSummary } from './sandbox-summary.ts'
import { costSummary, type CostEndpoint, type CostSummary } from './cost-summary.ts'
import { egressSummary, type EgressSummary } from './egress-summary.ts'
import { holmAdjust } from '../stats/holm.ts'
import type { McNemarResult } from '../stats/mcnemar.ts'
import { compareArms, type Comparison, type EffectResult, type HodgesLehmannResult } from './comparison.ts'
import { checkCompleteness, type RunGap, type RunIdentity } from './completeness.ts'
import { decide, NO_VERDICT, type Decision } from './decision.ts'
import { secondaryEndpoints, type ArmSecondary } from './secondary.ts'
import type { ChangeLogEntry } from '../experiment/schema.ts'
import { analysedArms, type AnalysisSettings, type Contamination, type EarlierSpecRuns, type PromptAllowanceRow, type Stage } from './settings.ts'
import { checkRecords, summariseTaskArms } from './task-summary.ts'
import { skillChecks, type SkillChecks } from './skill-checks.ts'
import { repositoriesOf, repositoryBreakdown, taskRepositories, type RepositoryComparison } from './repository-breakdown.ts'
import { provenance, type Provenance } from './provenance.ts'
import { sequentialAnalysis, type SequentialAnalysis } from './sequential.ts'

/** Which analysis a report is: the pre-registered one, or an exploratory look that departs from it (and says how). */
export interface AnalysisKind {
  readonly kind: 'pre-registered' | 'exploratory'
  /** What departed (a subset of arms, another α, no spec, no plan…), one phrase each; empty when pre-registered. */
  readonly departures: readonly string[]
  /** Whether completeness was judged against the plan spec.json keeps. */
  readonly completenessChecked: boolean
}

/**
 * `report.json`: DESIGN's fields first, in DESIGN's order, then additions.
 *
 * DESIGN's fields describe the experiment's comparison when it has two arms
 * (one treatment against the control). With more claim arms, each is
 * compared with the control in `comparisons` (Holm-adjusted primary p over
 * the claim family); the top-level `primary`, `mcnemar`, `effect`,
 * `hodgesLehmann` and `power` are then null, `solved` and `secondary` cover
 * every arm, and `decision.verdict` is `supported` when at least one claim
 * arm's claim is (Holm controls the family-wise error), with `criteria` null.
 * Design-check arms (a skill experiment's negative control and sanity
 * condition) are reported in `skillChecks`, never in `comparisons`, and never
 * make the verdict.
 *
 * On incomplete data (`complete: false`) nothing is computed: the
 * statistics are null, the verdict is `no verdict`, and `missingRuns` /
 * `unexpectedRuns` say exactly what keeps the data from matching the plan.
 */
export interface AnalysisReport {
  readonly experiment: string
  readonly stage: Stage | null
  /** The spec hash every analysed record carries (null when nothing was recorded). */
  readonly specSha256: string | null
  readonly versions: Provenance['versions']
  /** Every expected run recorded, and nothing else. */
  readonly complete: boolean
  /** Expected runs not recorded. */
  readonly missing: number
  readonly missingRuns: readonly RunGap[]
  /** Tasks in the experiment (expected). */
  readonly tasks: number
  /** Seeds per (task, arm). */
  readonly seeds: number
  /** The analysed arms: the control first, then the claim arms, then the design checks. */
  readonly arms: readonly string[]
  readonly primary: { readonly statistic: number; readonly p: number; readonly n: number; readonly exact: true; readonly minimumP: number } | null
  /** Tasks solved (by a majority of seeds) per arm. */
  readonly solved: Readonly<Record<string, number>> | null
  readonly mcnemar: McNemarResult | null
  readonly effect: EffectResult | null
  readonly hodgesLehmann: HodgesLehmannResult | null
  readonly decision: Decision
  readonly secondary: Readonly<Record<string, ArmSecondary>> | null
  readonly power: { readonly sigma: number | null; readonly tasksNeeded: number | null; readonly minimumTasks: number; readonly tasksUsed: number } | null
  /** Each claim arm against the control, in `treatments` order (empty when incomplete). */
  readonly comparisons: readonly Comparison[]
  /**
   * Each comparison's primary and co-primary endpoints on each source
   * repository's tasks alone (exploratory; the pooled test above stays the
   * pre-registered one). Present only when the tasks come from more than one
   * repository and the data are complete.
   */
  readonly byRepository?: readonly RepositoryComparison[]
  /** Skill experiments: the design's checks (negative control and sanity near zero, `full` against `target`); null otherwise or when incomplete. */
  readonly skillChecks: SkillChecks | null
  /** The pre-registration's change log, oldest first. */
  readonly changeLog: readonly ChangeLogEntry[]
  /** Additions to DESIGN's fields. */
  readonly analysis: AnalysisKind
  readonly control: string
  /** The claim family. */
  readonly treatments: readonly string[]
  /** Design-check arms: reported, never in the claim family, never the verdict. */
  readonly designChecks: readonly string[]
  /** Runs the plan expects of the analysed arms. */
  readonly planned: number
  /** The decision rule's parameters as applied (the spec's, or CLI overrides). */
  readonly parameters: {
    readonly alpha: number
    readonly margin: number
    readonly resamples: number
    readonly bootstrapSeed: number | string
    readonly power: number
    readonly effect: number
    readonly budgetUsd: number | null
    /** The cost endpoint (`decision.cost`). */
    readonly cost: CostEndpoint
  }
  /** Recorded runs of the analysed arms that the plan does not hold (they too keep a verdict back). */
  readonly unexpected: number
  readonly unexpectedRuns: readonly RunGap[]
  /** Analysed arms without a single recorded run. */
  readonly armsWithoutRuns: readonly string[]
  /** Tasks none of whose planned runs is recorded. */
  readonly tasksWithoutRuns: readonly string[]
  /** Seeds missing from every planned (task, arm) of the other tasks. */
  readonly seedsMissingEverywhere: readonly number[]
  /** Two arms: treatment's solved tasks − control's (null otherwise). */
  readonly solvedDifference: number | null
  /** Runs recorded under earlier spec hashes: kept in runs.jsonl, not analysed here (never pooled). */
  readonly earlierSpecs: readonly EarlierSpecRuns[]
  /** Tasks fixed on or before the model's training cutoff (reported, not judged); null when the spec names no cutoff. */
  readonly contamination: Contamination | null
  /** Gold module names the prompts were allowed to use, each with its task and reason. */
  readonly promptAllowances: readonly PromptAllowanceRow[]
  /** The sandbox the runs ran in (UNSANDBOXED said so) and the runs that tried to reach beyond it. */
  readonly sandbox: SandboxSummary
  /** The cost endpoint used, how many runs were metered, and the runs whose agent and metered costs disagree. */
  readonly cost: CostSummary
  /** Per arm, every host its runs reached through the sandbox's proxy ("reached beyond the model"). */
  readonly egress: EgressSummary
  /** Runs whose change carries integrity flags (test-disarming patterns): listed, not judged. */
  readonly integrity: IntegritySummary
  /**
   * A pre-registered sequential design: every look taken, the one that stopped it and why, the adjusted p and the
   * repeated interval; the verdict and the statistics above rest on the tasks of the last look taken. Null for a
   * fixed design.
   */
  readonly sequential: SequentialAnalysis | null
}

/** `byRepository` when the records' tasks come from more than one repository; nothing otherwise (a one-repository report is as before). */
function breakdownByRepository(records: readonly RecordedRun[], comparisons: readonly Comparison[]): Pick<AnalysisReport, 'byRepository'> {
  const repositoryOf = taskRepositories(records)
  return repositoriesOf(repositoryOf).length > 1 ? { byRepository: comparisons.map((comparison) => repositoryBreakdown(comparison, repositoryOf)) } : {}
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
export function analyzeRuns(allRecords: readonly RecordedRun[], settings: AnalysisSettings, allExpected: readonly RunIdentity[]): AnalysisReport {
  checkSettings(settings)
  checkRecords(allRecords, settings)
  const arms = analysedArms(settings)
  const armSet = new Set(arms)
  const sequential = settings.sequential != null && settings.treatments.length === 1 ? sequentialAnalysis(allRecords, settings, allExpected, settings.treatments[0]!) : null
  // Stopped early: the design is complete at the stopping look; later tasks' runs were never meant to run.
  const analysedTasks = sequential?.stoppedAt != null ? new Set(sequential.analysedTasks) : null
  const expected = analysedTasks === null ? allExpected : allExpected.filter((run) => analysedTasks.has(run.task))
  const records = analysedTasks === null ? allRecords : allRecords.filter((record) => analysedTasks.has(record.task))
  const expectedHere = expected.filter((run) => armSet.has(run.arm))
  const completeness = checkCompleteness(records, expectedHere, arms)
  const taskCount = new Set(expectedHere.map((run) => run.task)).size
  const seedCount = new Set(expectedHere.map((run) => run.seed)).size
  if (taskCount === 0 && completeness.unexpected === 0) {
    throw new DataError(`nothing to analyse: no run of ${arms.join(', ')} is expected or recorded`)
  }
  const analysedRecords = records.filter((record) => armSet.has(record.arm))
  const origin = provenance(analysedRecords)
  const base = {
    experiment: settings.experiment,
    stage: settings.stage,
    specSha256: origin.specSha256,
    versions: origin.versions,
    sandbox: sandboxSummary(records, arms),
    complete: completeness.complete,
    missing: completeness.missing,
    missingRuns: completeness.missingRuns,
    tasks: taskCount,
    seeds: seedCount,
    arms,
  }
  const additions = {
    analysis: {
      kind: settings.departures.length === 0 ? 'pre-registered' : 'exploratory',
      departures: settings.departures,
      completenessChecked: settings.planChecked,
    } satisfies AnalysisKind,
    control: settings.control,
    treatments: settings.treatments,
    designChecks: settings.designChecks,
    planned: expectedHere.length,
    parameters: {
      alpha: settings.alpha,
      margin: settings.margin,
      resamples: settings.resamples,
      bootstrapSeed: settings.bootstrapSeed,
      power: settings.power,
      effect: settings.effect,
      budgetUsd: settings.budgetUsd,
      cost: settings.cost ?? 'metered',
    },
    unexpected: completeness.unexpected,
    unexpectedRuns: completeness.unexpectedRuns,
    armsWithoutRuns: completeness.armsWithoutRuns,
    tasksWithoutRuns: completeness.tasksWithoutRuns,
    seedsMissingEverywhere: completeness.seedsMissingEverywhere,
    cost: costSummary(records, arms, settings.cost),
    egress: egressSummary(records, arms),
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
      hodgesLehmann: null,
      decision: NO_VERDICT,
      secondary: null,
      power: null,
      comparisons: [],
      skillChecks: null,
      integrity: integritySummary(records, arms),
      changeLog: preregistration.changeLog,
      ...additions,
      solvedDifference: null,
      earlierSpecs: preregistration.earlierSpecs,
      contamination: preregistration.contamination,
      promptAllowances: preregistration.promptAllowances,
      sequential,
    }
  }

  const table = summariseTaskArms(records, arms, settings.budgetUsd, settings.cost)
  const statistics = settings.treatments.map((treatment) => compareArms(table, settings, treatment))
  const adjusted = holmAdjust(statistics.map((comparison) => comparison.primary.p))
  const comparisons: Comparison[] = statistics.map((comparison, index) => {
    const pAdjusted = adjusted[index]!
    const { statistic, p, n, zeros, ties, exact, minimumP, family, tasksForAlpha } = comparison.primary
    return {
      treatment: comparison.treatment,
      control: comparison.control,
      tasks: comparison.tasks,
      primary: { statistic, p, pAdjusted, n, zeros, ties, exact, minimumP, family, tasksForAlpha },
      solved: comparison.solved,
      mcnemar: comparison.mcnemar,
      effect: comparison.effect,
      hodgesLehmann: comparison.hodgesLehmann,
      decision:
        sequential !== null && sequential.pendingLook === null
          ? sequentialDecision(sequential)
          : decide({
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
    primary: only === undefined ? null : { statistic: only.primary.statistic, p: only.primary.p, n: only.primary.n, exact: true, minimumP: only.primary.minimumP },
    solved,
    mcnemar: only?.mcnemar ?? null,
    effect: only?.effect ?? null,
    hodgesLehmann: only?.hodgesLehmann ?? null,
    decision: only?.decision ?? { verdict: anySupported ? 'supported' : 'not supported', supported: anySupported, criteria: null },
    secondary,
    power: only === undefined ? null : { sigma: only.power.sigma, tasksNeeded: only.power.tasksNeeded, minimumTasks: only.power.minimumTasks, tasksUsed: only.power.tasksUsed },
    comparisons,
    ...breakdownByRepository(records, comparisons),
    skillChecks: skillChecks(table, settings),
    integrity: integritySummary(records, arms),
    changeLog: preregistration.changeLog,
    ...additions,
    solvedDifference: only?.solved.difference ?? null,
    earlierSpecs: preregistration.earlierSpecs,
    contamination: preregistration.contamination,
    promptAllowances: preregistration.promptAllowances,
    sequential,
  }
}

/**
 * The decision at the look that decided: the exact sequential boundary in place of p < α (its nominal level is
 * the criterion's α), the repeated interval in place of the fixed 95% one, the solve-rate margin as before.
 * Supported only by an efficacy stop or by the last look meeting all three.
 */
function sequentialDecision(sequential: SequentialAnalysis): Decision {
  const look = sequential.looks.at(-1)!
  const criteria = {
    wilcoxon: { p: look.p, alpha: look.nominalLevel, met: look.crossed },
    interval: { upper: look.interval.ci[1], met: look.interval.ci[1] < 0 },
    solved: look.solved,
  }
  const supported = look.action === 'efficacy' || (look.action === 'final' && criteria.wilcoxon.met && criteria.interval.met && criteria.solved.met)
  return { verdict: supported ? 'supported' : 'not supported', supported, criteria }
}
