import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { type Command, InvalidArgumentError } from 'commander'
import { parseRecordedExperiment, resolveAnalysis, type AnalysisFlags, type RecordedExperiment, type ResolvedAnalysis } from '../../analysis/resolve.ts'
import { DataError } from '../../errors.ts'
import type { Contamination, EarlierSpecRuns } from '../../analysis/settings.ts'
import type { ChangeLogEntry } from '../../experiment/schema.ts'
import { knownSpecHashes, recordedChangeLog } from '../../runs/spec-record.ts'
import { noPlanMessage, readRecordedSpec, readSpecFile, specFilePath } from '../../runs/spec-file.ts'
import type { PlannedRun } from '../../runs/plan.ts'
import type { RecordedRun } from '../../runs/record.ts'
import { checkPlanned, readRuns, runsFilePath } from '../../runs/store.ts'
import { describeVerification } from '../../runs/transcript-check.ts'
import { runLabel } from '../../shared/run-label.ts'

/**
 * What `analyze` and `power` both read: the runs file, the spec beside it,
 * and the flags they share. A file of its own so neither command imports the other.
 */

/** A path as the user would type it: relative inside the working folder, absolute outside it. */
function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative
}

/** A runs file and, when it has one beside it, the experiment its spec.json records. */
export interface AnalysisInput {
  readonly runsFile: string
  /** The runs of the current spec (spec.json's), or every run when there is no spec.json. */
  readonly records: readonly RecordedRun[]
  readonly spec: RecordedExperiment | null
  /** The current spec's hash (null without spec.json). */
  readonly specSha256: string | null
  /** The change log spec.json keeps. */
  readonly changeLog: readonly ChangeLogEntry[]
  /** Runs under earlier specs spec.json keeps: set aside, never pooled. */
  readonly earlierSpecs: readonly EarlierSpecRuns[]
  /** The plan spec.json keeps (what completeness is judged against, as the reporter judges it); null only with --no-plan. */
  readonly plan: readonly PlannedRun[] | null
  /** The contamination flag spec.json keeps (null: the spec names no training cutoff). */
  readonly contamination: Contamination | null
  /** One line saying what the read verified: the hash chain and the transcripts. */
  readonly verification: string
}

/**
 * Reads what `analyze` and `power` work on: `<folder>/runs.jsonl` or the
 * given runs file, spec.json beside it, and the plan spec.json keeps. Without
 * a spec.json, or a plan in it, it refuses with one line saying what to do,
 * unless `noPlan`: then the plan is null and the report says completeness was
 * not checked. A malformed line is a `DataError` naming file:line and field;
 * so is a spec.json that does not describe these runs.
 */
export function loadAnalysisInput(target: string, options: { readonly noPlan?: boolean } = {}): AnalysisInput {
  const resolved = path.resolve(target)
  if (!existsSync(resolved)) throw new DataError(`${target}: no such file or folder. Give a runs.jsonl or an experiment's output folder.`)
  const runsFile = statSync(resolved).isDirectory() ? runsFilePath(resolved) : resolved
  const shown = displayPath(runsFile)
  if (!existsSync(runsFile)) throw new DataError(`${shown}: no such file; the folder holds no recorded runs.`)
  const { records, head, transcripts } = readRuns(runsFile)
  if (records.length === 0) throw new DataError(`${shown}: no runs recorded yet.`)
  const verification = describeVerification(shown, head.lines, transcripts)
  const outDir = path.dirname(runsFile)
  const specFile = displayPath(specFilePath(outDir))
  const noPlan = options.noPlan === true
  const withPlan = readSpecFile(outDir)
  if (!noPlan && withPlan === undefined) {
    throw new DataError(
      `${specFile}: no such file, so nothing says which runs were planned and completeness cannot be checked. Analyse the output folder ` +
        'the reporter wrote (it keeps spec.json beside runs.jsonl), or pass --no-plan (the report then says "completeness not checked").',
    )
  }
  if (!noPlan && withPlan!.plan === null) throw new DataError(noPlanMessage(specFile, String(withPlan!.recorded.manifest.experiment.name ?? '<experiment>')))
  const plan = noPlan ? null : withPlan!.plan
  const recorded = readRecordedSpec(outDir)
  if (recorded === undefined) {
    const hashes = [...new Set(records.map((record) => record.specSha256))]
    if (hashes.length > 1) {
      throw new DataError(
        `${shown} holds runs of ${hashes.length} spec hashes (${hashes.map((hash) => hash.slice(0, 12)).join(', ')}) and no spec.json beside it says which is current: ` +
          'runs under different specs are never pooled. Analyse the output folder with its spec.json.',
      )
    }
    return { runsFile: shown, records, spec: null, specSha256: null, changeLog: [], earlierSpecs: [], contamination: null, verification, plan }
  }
  const spec = parseRecordedExperiment(recorded.manifest?.experiment, specFile)
  const earlier = new Set(knownSpecHashes(recorded).slice(1))
  const foreign = records.find((record) => record.specSha256 !== recorded.specSha256 && !earlier.has(record.specSha256))
  if (foreign !== undefined) {
    throw new DataError(
      `${shown}: ${runLabel(foreign)} was recorded under spec ${foreign.specSha256.slice(0, 12)}, ` +
        `but ${specFile} describes spec ${recorded.specSha256.slice(0, 12)}: the spec beside the runs is not theirs.`,
    )
  }
  // One spec hash is analysed: the current one. Runs of earlier specs are counted, never pooled.
  const current = records.filter((record) => record.specSha256 === recorded.specSha256)
  const earlierSpecs = [...earlier]
    .map((specSha256) => ({ specSha256, runs: records.filter((record) => record.specSha256 === specSha256).length }))
    .filter((earlierSpec) => earlierSpec.runs > 0)
  if (current.length === 0) {
    throw new DataError(
      `${shown}: no runs recorded yet under the current spec ${recorded.specSha256.slice(0, 12)} ` +
        `(${records.length} run(s) under earlier specs are kept and never pooled with it). Run the experiment to record its runs.`,
    )
  }
  if (withPlan?.plan != null) checkPlanned(records, withPlan.plan, shown, recorded.specSha256)
  return {
    plan,
    runsFile: shown,
    records: current,
    spec,
    specSha256: recorded.specSha256,
    changeLog: recordedChangeLog(recorded),
    earlierSpecs,
    contamination: recorded.contamination ?? null,
    verification,
  }
}

/** The settings and plan for a loaded input and command-line flags; the change log and the earlier specs' runs go into the report. */
export function resolveInput(input: AnalysisInput, flags: AnalysisFlags): ResolvedAnalysis {
  const resolved = resolveAnalysis(input.records, input.spec, flags, input.runsFile, input.plan)
  return { ...resolved, settings: { ...resolved.settings, changeLog: input.changeLog, earlierSpecs: input.earlierSpecs, contamination: input.contamination } }
}

/** A number in (0, 1) for --alpha, --power, --effect. */
export function probabilityOption(name: string) {
  return (value: string): number => {
    const number = Number(value)
    if (!(number > 0 && number < 1)) throw new InvalidArgumentError(`${name} must be a number between 0 and 1 (exclusive), got "${value}"`)
    return number
  }
}

/** The design flags `power` and `plan` share, each read as `resolveInput` reads it. */
export interface DesignFlags {
  control?: string
  treatment?: string
  effect?: number
  power?: number
  alpha?: number
}

/**
 * Adds --effect, --power, --alpha, --control and --treatment to a command that sizes a design from a pilot, so
 * `power` and `plan` parse them alike; `wording` says what the effect and the power mean for that command.
 */
export function designOptions(command: Command, wording: { effect: string; power: string; treatment: string }): Command {
  return command
    .option('--effect <delta>', `${wording.effect} (default: the spec's, else 0.15)`, probabilityOption('--effect'))
    .option('--power <p>', `${wording.power} (default: the spec's, else 0.8)`, probabilityOption('--power'))
    .option('--alpha <p>', "one-sided significance level (default: the spec's, else 0.05)", probabilityOption('--alpha'))
    .option('--control <arm>', "the control arm (default: the spec's control)")
    .option('--treatment <arm>', wording.treatment)
}
