import { existsSync } from 'node:fs'
import path from 'node:path'
import type { Command } from 'commander'
import { loadExperiments } from '../../experiment/load.ts'
import { forecastExperiment, type Forecast } from '../../runs/forecast.ts'
import { prepareLoadedExperiment } from '../../runs/prepare.ts'
import { checkTasks, type CheckOutcome, type TaskCheck } from '../../curate/task-check.ts'
import type { ContaminationCheck } from '../../tasks/contamination.ts'
import { loadTaskSet } from '../../tasks/load.ts'
import { ExitCode } from '../exit-code.ts'
import { formatTable } from '../../format/table.ts'

function cell(outcome: CheckOutcome): string {
  return 'error' in outcome ? 'error' : outcome.solved ? 'solved' : 'unsolved'
}

/** The gold/noop table: one row per task, and one contamination column per training cutoff the set's experiments name. */
export function formatChecks(checks: readonly TaskCheck[], contamination: readonly ContaminationCheck[] = []): string {
  const cutoffs = [...new Map(contamination.map((check) => [check.trainingCutoff, check])).values()]
  const flag = (check: ContaminationCheck, task: string) => {
    const flagged = check.flagged.find((entry) => entry.task === task)
    if (flagged !== undefined) return `FLAGGED (fixed ${flagged.fixDate})`
    return check.undated.includes(task) ? 'unknown (no fix date)' : 'no'
  }
  return formatTable([
    ['task', 'gold', 'noop', 'valid', ...cutoffs.map((check) => `fixed on or before cutoff ${check.trainingCutoff}`)],
    ...checks.map((check) => [check.task, cell(check.gold), cell(check.noop), check.valid ? 'yes' : 'NO', ...cutoffs.map((cutoff) => flag(cutoff, check.task))]),
  ])
}

/** The plan of one experiment: runs per arm and the forecast cost. */
export function formatForecast(forecast: Forecast): string {
  const arms = Object.entries(forecast.runsPerArm)
    .map(([arm, runs]) => `${arm} ${runs}`)
    .join(', ')
  const limit = forecast.maxBudgetUsd === null ? 'no maxBudgetUsd set' : `limit $${forecast.maxBudgetUsd.toFixed(2)}`
  return (
    `experiment ${forecast.experiment}: ${forecast.runs} runs (${arms}); ` +
    `forecast $${forecast.totalUsd.toFixed(2)} at $${forecast.perRunUsd.toFixed(4)} per run; ${limit}` +
    (forecast.overBudget ? ' — OVER BUDGET: lower the seeds or tasks, or raise maxBudgetUsd' : '')
  )
}

/** `task-outcome validate <task-set>`: the whole contract, before any money is spent. */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description(
      'Check a task set before any money is spent: every task folder is well formed, the reference solution (gold) ' +
        'solves every task and an agent that changes nothing (noop) solves none. When the folder has an experiment.ts, ' +
        "also print each experiment's plan and forecast cost, and refuse one whose forecast exceeds its maxBudgetUsd.",
    )
    .argument('<task-set>', 'the task set folder, e.g. tasks/examples')
    .option('--timeout <seconds>', 'limit for each gold/noop run and its oracle', (value) => Number(value), 300)
    .option('--concurrency <n>', 'tasks checked at once', (value) => Number(value))
    .action(async (taskSet: string, options: { timeout: number; concurrency?: number }) => {
      const setDir = path.resolve(taskSet)
      const tasks = await loadTaskSet(setDir)
      process.stderr.write(`checking ${tasks.length} task(s) in ${taskSet} with gold and noop…\n`)
      const checks = await checkTasks(tasks, {
        timeoutMs: options.timeout * 1000,
        ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
        onChecked: (check, done, total) => process.stderr.write(`  [${done}/${total}] ${check.task}: ${check.valid ? 'valid' : 'INVALID'}\n`),
      })
      const experimentFile = path.join(setDir, 'experiment.ts')
      const prepared = existsSync(experimentFile)
        ? await Promise.all((await loadExperiments({ file: experimentFile })).map((experiment) => prepareLoadedExperiment(experiment)))
        : []
      const contamination = prepared.map((experiment) => experiment.contamination).filter((check): check is ContaminationCheck => check !== null)
      process.stdout.write(`${formatChecks(checks, contamination)}\n`)
      for (const check of checks) {
        if (check.protected !== null) process.stdout.write(`protected: ${check.task}: ${check.protected.length === 0 ? 'nothing' : check.protected.join(', ')}\n`)
      }
      const invalid = checks.filter((check) => !check.valid)
      for (const check of invalid) process.stdout.write(`invalid: ${check.task}: ${check.problem}\n`)
      for (const check of contamination) {
        if (check.flagged.length > 0) {
          process.stdout.write(
            `contamination: ${check.flagged.length} task(s) fixed on or before the training cutoff ${check.trainingCutoff} may be in the model's training data: ` +
              `${check.flagged.map((entry) => entry.task).join(', ')}\n`,
          )
        }
      }

      let overBudget = false
      for (const experiment of prepared) {
        const forecast = forecastExperiment(experiment)
        process.stdout.write(`${formatForecast(forecast)}\n`)
        overBudget ||= forecast.overBudget
      }
      if (invalid.length > 0 || overBudget) {
        process.stdout.write(invalid.length > 0 ? `${invalid.length} of ${checks.length} task(s) invalid: ${invalid.map((c) => c.task).join(', ')}\n` : '')
        throw new ExitCode(1)
      }
      process.stdout.write(`all ${checks.length} task(s) valid\n`)
    })
}
