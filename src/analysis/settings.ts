import { DecisionRuleSchema, type StageSchema, type ChangeLogEntry, type Experiment, type Sequential } from '../experiment/schema.ts'
import type { z } from 'zod'
import type { CostEndpoint } from './cost-summary.ts'

/** What the experiment is for (a pilot's report is labelled as one). */
export type Stage = z.infer<typeof StageSchema>

/**
 * Everything the analysis needs to know besides the records: which arm is
 * the control, which arms are compared with it, and the decision rule's
 * parameters, all fixed in the pre-registered experiment (CLI flags may
 * override them for an exploratory look).
 */
export interface AnalysisSettings {
  /** The experiment's name (records of any other experiment are refused). */
  readonly experiment: string
  /** Null when unknown (a runs.jsonl analysed without its spec.json). */
  readonly stage: Stage | null
  readonly control: string
  /** The claim family: arms compared with the control for a claim, Holm-adjusted together, in report order. */
  readonly treatments: readonly string[]
  /**
   * Design-check arms (a skill experiment's negative control and sanity
   * condition): analysed and reported against the control, never in the
   * claim family, never the verdict.
   */
  readonly designChecks: readonly string[]
  /** What departs from the pre-registered analysis (a subset of arms, another α, no plan…); empty for the pre-registered analysis. */
  readonly departures: readonly string[]
  /** Whether the expected runs are the plan spec.json keeps (false: derived from the records, so completeness was not checked). */
  readonly planChecked: boolean
  /** The per-run budget cap: a timeout is charged this (null: the record's own costUsd). */
  readonly budgetUsd: number | null
  /** Which cost is the endpoint (`decision.cost`): the metered one where runs were metered (undefined: the default, `metered`), or the agent's own. */
  readonly cost?: CostEndpoint
  /** Significance level of the primary test (one-sided). */
  readonly alpha: number
  /** Non-inferiority margin in solved tasks. */
  readonly margin: number
  readonly resamples: number
  readonly bootstrapSeed: number | string
  /** Power analysis: target power and the median relative reduction to detect. */
  readonly power: number
  readonly effect: number
  /** A pre-registered group-sequential design (null or absent: the fixed design). */
  readonly sequential?: Sequential | null
  /** The pre-registration's change log, printed in every report (none when absent). */
  readonly changeLog?: readonly ChangeLogEntry[]
  /** Runs recorded under earlier spec hashes: kept, counted in the report, never analysed with these. */
  readonly earlierSpecs?: readonly EarlierSpecRuns[]
  /** Tasks fixed on or before the model's training cutoff, flagged in the report (null: no cutoff named). */
  readonly contamination?: Contamination | null
  /** Gold module names the tasks' prompts were allowed to use, with the reasons (listed in the report). */
  readonly promptAllowances?: readonly PromptAllowanceRow[]
}

/** The contamination flag: the training cutoff, the tasks fixed on or before it, and those with no fix date. */
export interface Contamination {
  readonly trainingCutoff: string
  readonly flagged: readonly { readonly task: string; readonly fixDate: string }[]
  readonly undated: readonly string[]
}

/** One word a task's prompt was allowed to use although it names a gold file's module (metadata.json `allow`). */
export interface PromptAllowanceRow {
  readonly task: string
  readonly word: string
  readonly reason: string
}

/** How many runs an earlier spec hash holds in runs.jsonl. */
export interface EarlierSpecRuns {
  readonly specSha256: string
  readonly runs: number
}

/** The pre-registration's defaults (DESIGN): α 0.05, margin 1, 10,000 resamples, seed 20261014, power 0.8, δ 0.15. */
export const DEFAULT_DECISION = DecisionRuleSchema.parse({})

/** The skill conditions that check the design rather than make a claim: the negative control (an irrelevant skill) and sanity (settings on, no skill). */
export const DESIGN_CHECK_CONDITIONS: readonly string[] = ['negative', 'sanity']

/** The design-check arms among an experiment's arms: a skill experiment's negative control and sanity condition; none otherwise. */
export function designCheckArms(arms: readonly string[], skillExperiment: boolean): string[] {
  return skillExperiment ? arms.filter((arm) => DESIGN_CHECK_CONDITIONS.includes(arm)) : []
}

/** The settings a parsed experiment fixes: control, the claim arms and design checks in spec order, the budget and the decision rule. */
export function settingsFromExperiment(experiment: Experiment): AnalysisSettings {
  const { decision } = experiment
  const others = Object.keys(experiment.arms).filter((arm) => arm !== experiment.control)
  const designChecks = designCheckArms(others, experiment.skills !== undefined)
  return {
    experiment: experiment.name,
    stage: experiment.stage,
    control: experiment.control,
    treatments: others.filter((arm) => !designChecks.includes(arm)),
    designChecks,
    departures: [],
    planChecked: true,
    budgetUsd: experiment.budgetUsd,
    alpha: decision.alpha,
    margin: decision.margin,
    resamples: decision.resamples,
    bootstrapSeed: decision.bootstrapSeed,
    power: decision.power,
    effect: decision.effect,
    changeLog: experiment.preregistration?.changes ?? [],
    sequential: decision.sequential ?? null,
  }
}

/** The arms the analysis reads: the control first, then the claim arms, then the design checks. */
export function analysedArms(settings: AnalysisSettings): string[] {
  return [settings.control, ...settings.treatments, ...settings.designChecks]
}
