import { type Command, InvalidArgumentError } from 'commander'
import { type PlannedDesign, planDesigns } from '../../analysis/design-plan.ts'
import { pilotModel } from '../../analysis/design-simulation.ts'
import { endpointCostUsd } from '../../analysis/cost-summary.ts'
import { DataError } from '../../errors.ts'
import { canonicalJson } from '../../experiment/hash.ts'
import { formatTable } from '../../format/table.ts'
import { type DesignFlags, designOptions, loadAnalysisInput, resolveInput } from './analysis-input.ts'

interface PlanCliOptions extends DesignFlags {
  experiments: number
  seeds: number[]
  maxTasks: number
  seed: string
  json?: boolean
}

function wholeNumber(name: string, minimum: number) {
  return (value: string): number => {
    const number = Number(value)
    if (!Number.isInteger(number) || number < minimum) throw new InvalidArgumentError(`${name} must be a whole number of at least ${minimum}, got "${value}"`)
    return number
  }
}

function seedCounts(value: string): number[] {
  const counts = value.split(',').map((part) => Number(part.trim()))
  if (counts.length === 0 || counts.some((count) => !Number.isInteger(count) || count < 1)) {
    throw new InvalidArgumentError(`--seeds takes whole numbers of at least 1 separated by commas (e.g. 1,2,3), got "${value}"`)
  }
  return counts
}

const usd = (value: number) => `$${value.toFixed(2)}`

/** The planner's designs as a table: what each costs and buys under the null and the design alternative. */
export function formatPlan(designs: readonly PlannedDesign[]): string {
  return formatTable([
    ['design', 'power', 'type I', 'runs (null / alt / max)', 'dollars (null / alt / max)'],
    ...designs.map((design) => [
      design.label,
      design.alternative.supported.toFixed(3),
      design.null.supported.toFixed(3),
      `${design.null.expectedRuns.toFixed(1)} / ${design.alternative.expectedRuns.toFixed(1)} / ${design.null.maximumRuns}`,
      `${usd(design.null.expectedUsd)} / ${usd(design.alternative.expectedUsd)} / ${usd(design.null.maximumUsd)}`,
    ]),
  ])
}

/** The spec fields that pre-register a design, as they go into `defineExperiment({...})`. */
export function specFieldsOf(design: PlannedDesign): string {
  const sequential = design.design.sequential === null ? null : JSON.parse(canonicalJson(design.design.sequential))
  return [
    `  seeds: ${design.design.seeds},`,
    `  decision: { sequential: ${sequential === null ? 'null' : JSON.stringify(sequential)} },`,
    `  // and a task set of ${design.design.tasks} tasks (select --count ${design.design.tasks})`,
  ].join('\n')
}

/** `task-outcome plan <pilot>`: the cheapest design (tasks × seeds × looks) that meets the pre-registered power. */
export function registerPlan(program: Command): void {
  const command = program
    .command('plan')
    .description(
      "Price the confirmatory run's design from a pilot's runs. Simulates fixed and group-sequential designs " +
        "(tasks × seeds per arm × interim looks) with the pilot's spread between tasks, its spread between seeds, its " +
        'solve rates and its cost per run, each simulated experiment decided by the rule the analysis applies; prints ' +
        'the power, the type I error and the expected and maximum paid runs and dollars under the null and under the ' +
        'design alternative, recommends the cheapest design that meets the power, and prints the spec fields that ' +
        'pre-register it. Seeded: the same pilot and options print the same numbers.',
    )
    .argument('<runs>', "the pilot's runs.jsonl, or its output folder")
  designOptions(command, {
    effect: 'median relative reduction of the design alternative',
    power: 'power the design must reach',
    treatment: "the treatment arm (default: the spec's first claim arm)",
  })
    .option('--experiments <n>', 'simulated experiments per candidate design and effect (more: slower, smaller Monte Carlo error)', wholeNumber('--experiments', 50), 500)
    .option('--seeds <list>', 'seeds per (task, arm) to try', seedCounts, [1, 2, 3])
    .option('--max-tasks <n>', 'the most tasks to try', wholeNumber('--max-tasks', 2), 40)
    .option('--seed <text>', 'the simulation seed', 'plan')
    .option('--json', 'print every design as JSON')
    .addHelpText('after', '\nExample:\n  npx task-outcome plan bench/task_outcome/pilot --experiments 1000 --seeds 1,3\n')
    .action((target: string, options: PlanCliOptions) => {
      const { experiments, seeds, maxTasks, seed, json, ...flags } = options
      const input = loadAnalysisInput(target)
      const { settings } = resolveInput(input, flags)
      process.stderr.write(`${input.verification}\n`)
      const treatment = settings.treatments[0]
      if (treatment === undefined) throw new DataError(`${input.runsFile}: no treatment arm to plan for; name one with --treatment.`)
      // The pre-registered cost endpoint (metered where the runs were metered), as the analysis reads it.
      const runs = input.records.map((record) => ({ task: record.task, arm: record.arm, costUsd: endpointCostUsd(record, settings.cost), solved: record.solved }))
      let model: ReturnType<typeof pilotModel>
      try {
        model = pilotModel(runs, settings.control, treatment)
      } catch {
        throw new DataError(`${input.runsFile}: the pilot needs at least two tasks with runs of both ${settings.control} and ${treatment} to plan from.`)
      }
      const rule = { alpha: settings.alpha, margin: settings.margin, resamples: 400, effect: settings.effect, power: settings.power }
      process.stderr.write(
        `pilot: σ = ${model.sigma.toFixed(4)} (${model.seeds} seed(s)), τ = ${model.tau.toFixed(4)} between tasks, ω = ${model.omega.toFixed(4)} between seeds; ` +
          `simulating designs up to ${maxTasks} tasks with ${experiments} experiments each…\n`,
      )
      const started = performance.now()
      const designs = planDesigns(model, { rule, experiments: experiments, seed, seeds, maxTasks: maxTasks })
      process.stderr.write(`searched in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
      if (json === true) {
        process.stdout.write(
          `${JSON.stringify({ treatment, control: settings.control, rule, model: { sigma: model.sigma, tau: model.tau, omega: model.omega }, designs }, null, 2)}\n`,
        )
        return
      }
      if (designs.length === 0) {
        process.stdout.write(`No design of up to ${maxTasks} tasks reaches power ${settings.power} for a ${(settings.effect * 100).toFixed(0)}% reduction; try --max-tasks.\n`)
        return
      }
      const recommended = designs[0]!
      process.stdout.write(
        [
          `${treatment} against ${settings.control}: α = ${settings.alpha} one-sided, power ${settings.power} at a ${(settings.effect * 100).toFixed(0)}% median cost reduction`,
          'the smallest design of each shape that meets the power, cheapest first (expected dollars averaged over the null and the alternative):',
          formatPlan(designs),
          '',
          `recommended: ${recommended.label}`,
          'pre-register it in the experiment (before the first run):',
          specFieldsOf(recommended),
          '',
        ].join('\n'),
      )
    })
}
