import { InvalidArgumentError, type Command } from 'commander'
import { reportDocument } from '../../analysis/document.ts'
import { renderMarkdown } from '../../analysis/render-markdown.ts'
import { analyzeRuns } from '../../analysis/report.ts'
import { reportJson } from '../../analysis/report-json.ts'
import type { AnalysisFlags } from '../../analysis/resolve.ts'
import { ExitCode } from '../exit-code.ts'
import { loadAnalysisInput, probabilityOption, resolveInput } from './analysis-input.ts'

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
        "iff p < alpha, the interval's upper bound < 0, and solved(treatment) ≥ solved(control) − margin. With more than " +
        'two arms each is compared with the control, Holm-adjusted.\n\n' +
        'Given an output folder (or a runs.jsonl beside its spec.json), the control, arms, seeds, stage, budget and ' +
        'decision parameters come from the recorded spec; flags override them. Without spec.json, name the control ' +
        'with --control. Unless every (task, arm) holds the same complete set of seeds there is no verdict: the report ' +
        'lists what is missing and the command exits 1. Exit 0 means the data were complete, whatever the verdict.',
    )
    .argument('<runs>', "runs.jsonl, or the experiment's output folder holding it (e.g. bench/task_outcome/pilot)")
    .option('--control <arm>', "the control arm (default: the spec's control)")
    .option('--treatment <arm>', 'compare only this arm with the control (default: every other arm)')
    .option('--alpha <p>', "significance level of the one-sided primary test (default: the spec's, else 0.05)", probabilityOption('--alpha'))
    .option('--margin <tasks>', "non-inferiority margin in solved tasks (default: the spec's, else 1)", wholeNumberOption('--margin', 0))
    .option('--resamples <n>', "bootstrap resamples (default: the spec's, else 10000)", wholeNumberOption('--resamples', 1))
    .option('--seed <seed>', "bootstrap seed (default: the spec's, else 20261014)", seedOption)
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
      process.stderr.write(`${input.verification}\n`)
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
