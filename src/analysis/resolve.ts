import { z } from 'zod'
import { DataError, describeSchemaIssues } from '../errors.ts'
import { SequentialSchema, StageSchema } from '../experiment/schema.ts'
import type { PlannedRun } from '../runs/plan.ts'
import type { RecordedRun } from '../runs/record.ts'
import { expectedRuns, type RunIdentity } from './completeness.ts'
import { DEFAULT_DECISION, designCheckArms, type AnalysisSettings } from './settings.ts'

/**
 * The part of spec.json's `manifest.experiment` (the normalised parsed
 * experiment the reporter keeps beside runs.jsonl) the analysis reads. Loose:
 * fields it does not need are ignored, so a spec from a newer harness loads.
 */
export const RecordedExperimentSchema = z.looseObject({
  name: z.string().min(1),
  stage: StageSchema.optional(),
  arms: z.record(z.string(), z.unknown()).refine((arms) => Object.keys(arms).length >= 2, 'name at least two arms'),
  control: z.string().min(1),
  seeds: z.number().int().positive(),
  budgetUsd: z.number().positive().optional(),
  /** Present in a skill experiment (its negative control and sanity condition are design checks). */
  skills: z.unknown().optional(),
  decision: z
    .looseObject({
      alpha: z.number().gt(0).lt(1).optional(),
      margin: z.number().int().nonnegative().optional(),
      resamples: z.number().int().positive().optional(),
      bootstrapSeed: z.union([z.number().int(), z.string()]).optional(),
      power: z.number().gt(0).lt(1).optional(),
      effect: z.number().gt(0).lt(1).optional(),
      cost: z.enum(['metered', 'agent']).optional(),
      sequential: SequentialSchema.optional(),
    })
    .optional(),
})
/** The recorded experiment's fields the analysis reads. */
export type RecordedExperiment = z.infer<typeof RecordedExperimentSchema>

/** Parses spec.json's experiment; a `DataError` names the file and field otherwise. */
export function parseRecordedExperiment(value: unknown, file: string): RecordedExperiment {
  const parsed = RecordedExperimentSchema.safeParse(value)
  if (!parsed.success) {
    throw new DataError(`${file}: ${describeSchemaIssues(parsed.error.issues, 'manifest.experiment')}`)
  }
  return parsed.data
}

/** What a command line may set or override (each flag wins over spec.json). */
export interface AnalysisFlags {
  readonly control?: string
  readonly treatment?: string
  readonly alpha?: number
  readonly margin?: number
  readonly resamples?: number
  readonly seed?: number | string
  readonly power?: number
  readonly effect?: number
}

/** Settings and the expected runs for analysing a runs file. */
export interface ResolvedAnalysis {
  readonly settings: AnalysisSettings
  readonly expected: readonly RunIdentity[]
  /** Where each setting came from, for the reader: `spec.json`, flags, or the records alone. */
  readonly source: 'spec' | 'records'
}

const DECISION_FLAGS = [
  ['alpha', '--alpha'],
  ['margin', '--margin'],
  ['resamples', '--resamples'],
  ['seed', '--seed'],
  ['power', '--power'],
  ['effect', '--effect'],
] as const

function sortedUnique<T>(values: Iterable<T>, compare: (a: T, b: T) => number): T[] {
  return [...new Set(values)].sort(compare)
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Decides what to analyse from the records, the recorded spec (if any), its
 * plan (if any) and flags: the control (flag, else the spec's), the claim arms
 * (the flag's one arm, else the spec's claim arms, else every other arm
 * recorded), the design checks (a skill experiment's, unless one arm is
 * named), the expected runs (the plan's runs of the analysed arms; without
 * a plan, the tasks recorded × the analysed arms × the spec's seeds 1..S or
 * every seed recorded), and the decision parameters (flag, spec,
 * pre-registered default). Every flag that changes what the spec fixes, a
 * missing spec and a missing plan are departures: the analysis is then
 * exploratory and says why. Says what is missing when it cannot decide.
 */
export function resolveAnalysis(
  records: readonly RecordedRun[],
  spec: RecordedExperiment | null,
  flags: AnalysisFlags,
  runsFile: string,
  plan: readonly PlannedRun[] | null = null,
): ResolvedAnalysis {
  const recordedArms = sortedUnique(
    records.map((record) => record.arm),
    byText,
  )
  const specArms = spec === null ? null : Object.keys(spec.arms)
  for (const [flag, arm] of [
    ['--control', flags.control],
    ['--treatment', flags.treatment],
  ] as const) {
    if (arm !== undefined && specArms !== null && !specArms.includes(arm)) {
      throw new DataError(`${flag} ${arm}: not an arm of experiment "${spec!.name}" (its arms: ${specArms.join(', ')})`)
    }
  }
  const control = flags.control ?? spec?.control
  if (control === undefined) {
    if (recordedArms.length === 1) {
      throw new DataError(
        `${runsFile} holds runs of one arm only (${recordedArms[0]}); the other arm is missing, and without spec.json beside the file ` +
          `nothing says which arm it is. Pass --control <arm> and --treatment <arm> to name both (the missing arm's runs are then listed), ` +
          'or analyse the output folder, whose spec.json names the arms.',
      )
    }
    throw new DataError(`which arm is the control? ${runsFile} has no spec.json beside it. Pass --control <arm> (recorded arms: ${recordedArms.join(', ')}).`)
  }
  const otherArms = (specArms ?? recordedArms).filter((arm) => arm !== control)
  const specDesignChecks = designCheckArms(otherArms, spec?.skills !== undefined)
  const claimArms = otherArms.filter((arm) => !specDesignChecks.includes(arm))
  const treatments = flags.treatment !== undefined ? [flags.treatment] : claimArms
  const designChecks = flags.treatment !== undefined ? [] : specDesignChecks
  if (treatments.length === 0) {
    throw new DataError(`${runsFile} holds runs of ${control} only: the treatment arm is missing. Pass --treatment <arm> to name it (its runs are then listed as missing).`)
  }
  if (treatments.includes(control)) throw new DataError(`--treatment ${control} is the control arm; name another arm`)
  const arms = [control, ...treatments, ...designChecks]
  const decision = { ...DEFAULT_DECISION, ...stripUndefined(spec?.decision ?? {}) }
  const settings: AnalysisSettings = {
    experiment: spec?.name ?? records[0]?.experiment ?? 'unknown',
    stage: spec?.stage ?? null,
    control,
    treatments,
    designChecks,
    departures: departures(spec, plan, flags, control, claimArms, decision),
    planChecked: plan !== null,
    budgetUsd: spec?.budgetUsd ?? null,
    alpha: flags.alpha ?? decision.alpha,
    margin: flags.margin ?? decision.margin,
    resamples: flags.resamples ?? decision.resamples,
    bootstrapSeed: flags.seed ?? decision.bootstrapSeed,
    power: flags.power ?? decision.power,
    effect: flags.effect ?? decision.effect,
    cost: decision.cost,
    sequential: spec?.decision?.sequential ?? null,
  }
  return { settings, expected: expectedFor(records, spec, plan, arms), source: spec === null ? 'records' : 'spec' }
}

/** The plan's runs of the analysed arms; without a plan, the tasks recorded × the arms × the seeds. */
function expectedFor(records: readonly RecordedRun[], spec: RecordedExperiment | null, plan: readonly PlannedRun[] | null, arms: readonly string[]): RunIdentity[] {
  if (plan !== null) return plan.filter((run) => arms.includes(run.arm)).map(({ task, arm, seed }) => ({ task, arm, seed }))
  const analysed = records.filter((record) => arms.includes(record.arm))
  const tasks = sortedUnique(
    analysed.map((record) => record.task),
    byText,
  )
  const seeds =
    spec?.seeds ??
    sortedUnique(
      analysed.map((record) => record.seed),
      (a, b) => a - b,
    )
  return expectedRuns(tasks, arms, seeds)
}

/** What makes this analysis other than the pre-registered one, one phrase each. */
function departures(
  spec: RecordedExperiment | null,
  plan: readonly PlannedRun[] | null,
  flags: AnalysisFlags,
  control: string,
  claimArms: readonly string[],
  decision: typeof DEFAULT_DECISION,
): string[] {
  const found: string[] = []
  if (spec === null) found.push("no spec.json: the arms and decision parameters are not the recorded pre-registration's but the flags' or the defaults")
  if (plan === null) found.push('completeness not checked: no plan (--no-plan), so a task or seed with no recorded run at all cannot be seen as missing')
  if (spec !== null && control !== spec.control) found.push(`--control ${control} (the spec's control is ${spec.control})`)
  if (spec !== null && flags.treatment !== undefined && !(claimArms.length === 1 && claimArms[0] === flags.treatment)) {
    found.push(
      `--treatment ${flags.treatment}: only ${flags.treatment} against ${control}, p not Holm-adjusted over the pre-registered claim family (${claimArms.join(', ') || 'none'})`,
    )
  }
  if (spec !== null) {
    const specValues = {
      alpha: decision.alpha,
      margin: decision.margin,
      resamples: decision.resamples,
      seed: decision.bootstrapSeed,
      power: decision.power,
      effect: decision.effect,
    }
    for (const [key, flag] of DECISION_FLAGS) {
      const value = flags[key]
      if (value !== undefined && value !== specValues[key]) found.push(`${flag} ${value} (pre-registered ${specValues[key]})`)
    }
  }
  return found
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as Partial<T>
}
