import type { Comparison } from './comparison.ts'
import { formatP, formatSeeds } from './format.ts'
import type { AnalysisReport } from './report.ts'
import { runLabel } from '../shared/run-label.ts'

/** The pre-registered claim for one treatment. */
export function claim(treatment: string, control: string): string {
  return `${treatment} lowers the agent's cost per task without lowering its solve rate (against ${control})`
}

/**
 * The floor sentence, when the exact test could not reach α at this n (and
 * Holm m) whatever the data: the design, not the agent, decided the result.
 * Null when the floor is below α.
 */
export function floorSentence(comparison: Comparison, alpha: number): string | null {
  const { n, minimumP, family, tasksForAlpha } = comparison.primary
  if (minimumP < alpha) return null
  return (
    `The smallest p the exact test can reach with n = ${n} task(s) with a non-zero difference${family > 1 ? `, Holm over ${family} claim arms` : ''} ` +
    `is ${formatP(minimumP)} ≥ α = ${alpha}: this design cannot support the claim at n = ${n}; it needs n ≥ ${tasksForAlpha}.`
  )
}

/**
 * The verdict sentence of one comparison, reported as what it is: the claim
 * supported; or not, with why (no reduction shown, a loss, or too few solved).
 */
export function verdictSentence(comparison: Comparison): string {
  const { treatment, control, decision } = comparison
  if (decision.supported || decision.criteria === null) return `Supported: "${claim(treatment, control)}".`
  const { wilcoxon, interval, solved } = decision.criteria
  const [lower, upper] = comparison.effect.ci95
  const fewer = `${treatment} solves ${solved.treatment} tasks against ${solved.control} for ${control}, beyond the margin of ${solved.margin}`
  const floor = floorSentence(comparison, wilcoxon.alpha)
  let detail: string
  if (lower > 0) detail = `It is a loss: ${treatment} costs more per task (the whole interval is above zero).`
  // The interval says the cost fell, and only the exact test's floor at this n kept p above α: say that, not "no reduction".
  else if (upper < 0 && !wilcoxon.met && floor !== null)
    detail = `The cost fell (the whole interval is below zero), but with n = ${comparison.primary.n} task(s) the exact test cannot reach p < ${wilcoxon.alpha}.`
  else if (!wilcoxon.met || !interval.met) detail = 'No cost reduction shown.'
  else detail = `Cost is lower, but ${fewer}.`
  if (!solved.met && (lower > 0 || !wilcoxon.met || !interval.met)) detail += ` And ${fewer}.`
  if (floor !== null) detail += ` ${floor}`
  return `Not supported: "${claim(treatment, control)}". ${detail}`
}

/**
 * What is missing, in the fewest words: tasks with no recorded run at all,
 * seeds missing from every (task, arm) of the others, and how many runs besides.
 */
export function missingSummary(report: AnalysisReport): string | null {
  if (report.missing === 0) return null
  const whole = new Set(report.tasksWithoutRuns)
  const everywhere = new Set(report.seedsMissingEverywhere)
  const rest = report.missingRuns
    .filter((gap) => !whole.has(gap.task))
    .flatMap((gap) => gap.seeds.filter((seed) => !everywhere.has(seed)).map((seed) => runLabel({ task: gap.task, arm: gap.arm, seed })))
  const parts: string[] = []
  if (whole.size > 0) parts.push(`every run of task${whole.size > 1 ? 's' : ''} ${report.tasksWithoutRuns.join(', ')}`)
  if (everywhere.size > 0) parts.push(`seed ${formatSeeds(report.seedsMissingEverywhere)} of every${whole.size > 0 ? ' other' : ''} task and arm`)
  if (rest.length > 0) parts.push(`${rest.length}${parts.length > 0 ? ' more' : ''} run(s): ${rest.slice(0, 3).join('; ')}${rest.length > 3 ? '; …' : ''}`)
  return `Missing: ${parts.join('; ')}.`
}

/** Why there is no verdict: how many runs are missing and which, which arm has none, what does not belong. */
export function noVerdictSentences(report: AnalysisReport): string[] {
  const sentences: string[] = []
  if (report.missing > 0) sentences.push(`No verdict: ${report.missing} of ${report.planned} planned runs are missing.`)
  else sentences.push('No verdict: the recorded runs do not match the plan.')
  const summary = missingSummary(report)
  if (summary !== null) sentences.push(summary)
  for (const arm of report.armsWithoutRuns) {
    sentences.push(`Arm ${arm}${arm === report.control ? ' (the control)' : ''} has no recorded runs.`)
  }
  if (report.unexpected > 0) {
    sentences.push(
      `${report.unexpected} recorded run(s) are not in the plan (${report.unexpectedRuns
        .slice(0, 3)
        .map((gap) => `${gap.task} › ${gap.arm} › seed ${formatSeeds(gap.seeds)}`)
        .join('; ')}${report.unexpectedRuns.length > 3 ? '; …' : ''}).`,
    )
  }
  sentences.push('The analysis refuses a verdict unless every (task, arm) holds the same complete set of seeds.')
  return sentences
}

/** The label of an exploratory analysis: what departed from the pre-registered one. Null for the pre-registered analysis. */
export function exploratorySentence(report: AnalysisReport): string | null {
  if (report.analysis.kind === 'pre-registered') return null
  return `This is not the pre-registered analysis and its verdict is not the experiment's: ${report.analysis.departures.join('; ')}.`
}
