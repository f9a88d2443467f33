import type { Command } from 'commander'
import { formatNumber } from '../../analysis/format.ts'
import { PILOT_MIN_TASKS } from '../../analysis/comparison.ts'
import { powerAnalysis, type PowerAnalysis } from '../../analysis/power.ts'
import { canonicalJson } from '../../experiment/hash.ts'
import path from 'node:path'
import { type DesignFlags, designOptions, loadAnalysisInput, resolveInput } from './analysis-input.ts'
import { signedRankTasksForAlpha } from '../../stats/signed-rank-floor.ts'
import { confirmatorySelectCommand } from './confirmatory-command.ts'

interface PowerCliOptions extends DesignFlags {
  json?: boolean
  plan?: boolean
}

/** The formula with this run's numbers, one step per line. */
export function formatPowerAnalysis(result: PowerAnalysis): string {
  const lines = [
    `${result.treatment} against ${result.control}: ${result.tasks} task(s)` +
      (result.tasksLeftOut > 0 ? ` (${result.tasksLeftOut} left out: their runs are incomplete)` : '') +
      (result.tasksUsed < result.tasks ? `, σ over the ${result.tasksUsed} whose control cost something` : ''),
  ]
  if (result.fewTasks) lines.push(`  warning: σ rests on ${result.tasks} task(s), fewer than ${PILOT_MIN_TASKS}; a pilot that small cannot size a run with confidence`)
  if (result.sigma === null || result.exactTasks === null || result.tasksNeeded === null) {
    lines.push('  σ needs at least two tasks with a finite relative change; there are not enough.')
    return lines.join('\n')
  }
  const z = `${formatNumber(result.zAlpha, 4)} + ${formatNumber(result.zPower, 4)}`
  lines.push(
    `  σ = ${formatNumber(result.sigma, 4)}  (sample standard deviation of r = d / mean cost of ${result.control}, per task)`,
    `  n = ⌈((z₁₋α + z_power) · σ / δ)² / 0.955⌉`,
    `    = ⌈((${z}) · ${formatNumber(result.sigma, 4)} / ${result.effect})² / 0.955⌉`,
    `    = ⌈${formatNumber(result.exactTasks, 2)}⌉ = ${result.formulaTasks} task(s)${result.tasksNeeded === result.formulaTasks ? '' : ` → ${result.tasksNeeded} task(s)`}`,
    ...(result.tasksNeeded === result.formulaTasks
      ? []
      : [
          `  floor: the exact test cannot reach p < ${result.alpha} with fewer than ${result.minimumTasks} tasks with a non-zero difference` +
            `${result.family > 1 ? ` (Holm over ${result.family} claim arms)` : ''}, so n is raised to ${result.tasksNeeded}`,
        ]),
    `  α = ${result.alpha} one-sided, power ${result.power}, δ = ${result.effect} (a ${formatNumber(result.effect * 100, 1)}% median cost reduction); ` +
      "0.955 is the Wilcoxon test's efficiency relative to the t-test.",
  )
  return lines.join('\n')
}

/** `task-outcome power <runs.jsonl>`: how many tasks the confirmatory run needs. */
export function registerPower(program: Command): void {
  const command = program
    .command('power')
    .description(
      "Size the confirmatory run from a pilot's runs: σ, the sample standard deviation of the per-task relative cost " +
        'change r = d / cost(control), and n = ⌈((z₁₋α + z_power)·σ/δ)² / 0.955⌉ tasks for the given power to detect a ' +
        "median reduction δ at one-sided α (0.955: the Wilcoxon test's efficiency against the t-test). Tasks whose runs " +
        'are incomplete are left out and counted. The confirmatory run uses new tasks drawn by the same rule.',
    )
    .argument('<runs>', "the pilot's runs.jsonl, or its output folder")
  designOptions(command, { effect: 'median relative reduction to detect', power: 'target power', treatment: 'only this arm (default: every other arm)' })
    .option('--json', 'print the numbers as JSON')
    .option('--no-plan', "judge which tasks are complete without spec.json's plan (a task with no run at all is then not seen)")
    .addHelpText('after', '\nExample:\n  npx task-outcome power bench/task_outcome/pilot/runs.jsonl --effect 0.15 --power 0.8\n')
    .action((target: string, options: PowerCliOptions) => {
      const { json, plan, ...flags } = options
      const input = loadAnalysisInput(target, { noPlan: plan === false })
      const { settings, expected } = resolveInput(input, flags)
      process.stderr.write(`${input.verification}\n`)
      const results = powerAnalysis(input.records, settings, expected)
      if (json === true) {
        process.stdout.write(`${JSON.stringify(JSON.parse(canonicalJson(results)), null, 2)}\n`)
        return
      }
      process.stdout.write(`${results.map(formatPowerAnalysis).join('\n\n')}\n`)
      const floor = signedRankTasksForAlpha(settings.alpha, settings.treatments.length)
      const needed = results.map((result) => result.tasksNeeded).filter((n): n is number => n !== null)
      const formula = results.map((result) => result.formulaTasks).filter((n): n is number => n !== null)
      if (needed.length === 0) return
      const count = Math.max(floor, ...needed)
      const draw = confirmatorySelectCommand(path.dirname(path.resolve(input.runsFile)), count)
      process.stdout.write(
        [
          '',
          `confirmatory run: ${count} new task(s)` +
            (Math.max(...formula) < floor
              ? ` (raised from ${Math.max(...formula)} to the exact test's floor: below ${floor} task(s) the one-sided exact Wilcoxon test cannot reach p < ${settings.alpha}${settings.treatments.length > 1 ? ` / ${settings.treatments.length} (Holm)` : ''})`
              : ''),
          '  draw them by the same rule and seed from candidates the pilot did not use:',
          `  ${draw.command}`,
          ...(draw.note === null ? [] : [`  (${draw.note})`]),
          ...(draw.unreached !== null && draw.unreached < count
            ? [
                `  only ${draw.unreached} candidate(s) the pilot's walk did not reach remain, fewer than the ${count} it needs: ` +
                  'harvest more first (an earlier --since, another repository) into the candidates file, then draw',
              ]
            : []),
          '',
        ].join('\n'),
      )
    })
}
