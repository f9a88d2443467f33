import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { InvalidArgumentError, type Command } from 'commander'
import { reportDocument } from '../../analysis/document.ts'
import { renderMarkdown } from '../../analysis/render-markdown.ts'
import { analyzeRuns } from '../../analysis/report.ts'
import { reportJson } from '../../analysis/report-json.ts'
import { parseRecordedExperiment, resolveAnalysis, type AnalysisFlags, type RecordedExperiment, type ResolvedAnalysis } from '../../analysis/resolve.ts'
import { DataError } from '../../errors.ts'
import type { PlannedRun } from '../../runs/plan.ts'
import type { RecordedRun } from '../../runs/record.ts'
import { noPlanMessage, readSpecFile, specFilePath } from '../../runs/spec-file.ts'
import { readRuns, runsFilePath } from '../../runs/store.ts'
import { ExitCode } from '../main.ts'

/** A path as the user would type it: relative inside the working folder, absolute outside it. */
function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative
}

/** A runs file and, when it has one beside it, the experiment its spec.json records. */
export interface AnalysisInput {
  readonly runsFile: string
  readonly records: readonly RecordedRun[]
  readonly spec: RecordedExperiment | null
  /** The plan spec.json keeps; null only with --no-plan. */
  readonly plan: readonly PlannedRun[] | null
}

/**
 * Reads what `analyze` and `power` work on: `<folder>/runs.jsonl` or the
 * given runs file, spec.json beside it, and the plan spec.json keeps (what
 * completeness is judged against, as the reporter judges it). Without a
 * spec.json or its plan it refuses, saying what to do, unless `noPlan`; then
 * the plan is null and the analysis says completeness was not checked. A
 * malformed line is a `DataError` naming file:line and field; so is a
 * spec.json that does not describe these runs.
 */
export function loadAnalysisInput(target: string, options: { readonly noPlan?: boolean } = {}): AnalysisInput {
  const resolved = path.resolve(target)
  if (!existsSync(resolved)) throw new DataError(`${target}: no such file or folder. Give a runs.jsonl or an experiment's output folder.`)
  const runsFile = statSync(resolved).isDirectory() ? runsFilePath(resolved) : resolved
  const shown = displayPath(runsFile)
  if (!existsSync(runsFile)) throw new DataError(`${shown}: no such file; the folder holds no recorded runs.`)
  const { records } = readRuns(runsFile)
  if (records.length === 0) throw new DataError(`${shown}: no runs recorded yet.`)
  const outDir = path.dirname(runsFile)
  const specFile = displayPath(specFilePath(outDir))
  if (options.noPlan !== true) requirePlanFor(outDir, specFile)
  const recorded = readSpecFile(outDir)
  if (recorded === undefined) return { runsFile: shown, records, spec: null, plan: null }
  const spec = parseRecordedExperiment(recorded.manifest?.experiment, specFile)
  const foreign = records.find((record) => record.specSha256 !== recorded.specSha256)
  if (foreign !== undefined) {
    throw new DataError(
      `${shown}: ${foreign.task} › ${foreign.arm} › seed ${foreign.seed} was recorded under spec ${foreign.specSha256.slice(0, 12)}, ` +
        `but ${specFile} describes spec ${recorded.specSha256.slice(0, 12)}: the spec beside the runs is not theirs.`,
    )
  }
  return { runsFile: shown, records, spec, plan: options.noPlan === true ? null : recorded.plan }
}

/** `requirePlan`, with the paths as the user typed them. */
function requirePlanFor(outDir: string, specFile: string): void {
  const recorded = readSpecFile(outDir)
  if (recorded === undefined) {
    throw new DataError(
      `${specFile}: no such file, so nothing says which runs were planned and completeness cannot be checked. Analyse the output folder ` +
        'the reporter wrote (it keeps spec.json beside runs.jsonl), or pass --no-plan (the report then says "completeness not checked").',
    )
  }
  if (recorded.plan === null) throw new DataError(noPlanMessage(specFile, String(recorded.manifest.experiment.name ?? '<experiment>')))
}

/** The settings and plan for a loaded input and command-line flags. */
export function resolveInput(input: AnalysisInput, flags: AnalysisFlags): ResolvedAnalysis {
  return resolveAnalysis(input.records, input.spec, flags, input.runsFile, input.plan)
}

/** A number in (0, 1) for --alpha, --power, --effect. */
export function probabilityOption(name: string) {
  return (value: string): number => {
    const number = Number(value)
    if (!(number > 0 && number < 1)) throw new InvalidArgumentError(`${name} must be a number between 0 and 1 (exclusive), got "${value}"`)
    return number
  }
}

function wholeNumberOption(name: string, min: number) {
  return (value: string): number => {
    const number = Number(value)
    if (!Number.isSafeInteger(number) || number < min) throw new InvalidArgumentError(`${name} must be a whole number of at least ${min}, got "${value}"`)
    return number
  }
}

function seedOption(value: string): number | string {
  return /^-?\d+$/.test(value) ? Number(value) : value
}

interface AnalyzeCliOptions extends AnalysisFlags {
  json?: boolean
  /** Commander's negation of --no-plan. */
  plan?: boolean
}

/** `task-outcome analyze <runs.jsonl | output folder>`: the pre-registered analysis and verdict. */
export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description(
      'Apply the pre-registered analysis to recorded runs and print the verdict: supported, not supported, or no verdict.\n\n' +
        'Per task and arm: mean cost over seeds (a timeout is charged the budget cap) and solved when more than half the ' +
        'seeds solved. Primary: exact one-sided Wilcoxon signed-rank on d = cost(treatment) − cost(control) per task ' +
        '(ties by midranks, p from the exact distribution, zeros dropped). Co-primary: exact McNemar on per-task solved. ' +
        'Effect: median of r = d / cost(control), 95% percentile bootstrap over tasks (seedrandom). The claim is supported ' +
        'iff p < alpha, the interval\'s upper bound < 0, and solved(treatment) ≥ solved(control) − margin. With more than ' +
        'two arms each is compared with the control, Holm-adjusted.\n\n' +
        'Given an output folder (or a runs.jsonl beside its spec.json), the control, arms, seeds, stage, budget and ' +
        'decision parameters come from the recorded spec; flags override them. Without spec.json, name the control ' +
        'with --control. Unless every (task, arm) holds the same complete set of seeds there is no verdict: the report ' +
        'lists what is missing and the command exits 1. Exit 0 means the data were complete, whatever the verdict.',
    )
    .argument('<runs>', 'runs.jsonl, or the experiment\'s output folder holding it (e.g. bench/task_outcome/pilot)')
    .option('--control <arm>', 'the control arm (default: the spec\'s control)')
    .option('--treatment <arm>', 'compare only this arm with the control (default: every other arm)')
    .option('--alpha <p>', 'significance level of the one-sided primary test (default: the spec\'s, else 0.05)', probabilityOption('--alpha'))
    .option('--margin <tasks>', 'non-inferiority margin in solved tasks (default: the spec\'s, else 1)', wholeNumberOption('--margin', 0))
    .option('--resamples <n>', 'bootstrap resamples (default: the spec\'s, else 10000)', wholeNumberOption('--resamples', 1))
    .option('--seed <seed>', 'bootstrap seed (default: the spec\'s, else 20261014)', seedOption)
    .option('--json', 'print exactly report.json (the same runs give the same bytes)')
    .option('--no-plan', 'analyse without spec.json\'s plan (the report says "completeness not checked": a task or seed with no run at all is not seen as missing)')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  npx task-outcome analyze bench/task_outcome/pilot\n' +
        '  npx task-outcome analyze bench/task_outcome/pilot --json > report.json\n' +
        '  npx task-outcome analyze runs.jsonl --control baseline --treatment neuralmind\n',
    )
    .action((target: string, options: AnalyzeCliOptions) => {
      const { json, plan, ...flags } = options
      const input = loadAnalysisInput(target, { noPlan: plan === false })
      const { settings, expected } = resolveInput(input, flags)
      process.stderr.write(
        `analysing ${input.records.length} run(s) of ${input.runsFile}: ${settings.treatments.join(', ')} against ${settings.control}` +
          `${input.spec === null ? ' (no spec.json: decision parameters are the flags or the pre-registered defaults)' : ''}\n` +
          (settings.departures.length === 0 ? '' : `EXPLORATORY: not the pre-registered analysis: ${settings.departures.join('; ')}\n`),
      )
      const report = analyzeRuns(input.records, settings, expected)
      process.stdout.write(json === true ? reportJson(report) : renderMarkdown(reportDocument(report)))
      if (!report.complete) throw new ExitCode(1)
    })
}
