import type { Comparison } from './comparison.ts'
import { formatSeeds } from './format.ts'
import type { AnalysisReport } from './report.ts'

/** The pre-registered claim for one treatment. */
export function claim(treatment: string, control: string): string {
  return `${treatment} lowers the agent's cost per task without lowering its solve rate (against ${control})`
}

/**
 * The verdict sentence of one comparison, reported as what it is: the claim
 * supported; or not, with why (no reduction shown, a loss, or too few solved).
 */
export function verdictSentence(comparison: Comparison): string {
  const { treatment, control, decision } = comparison
  if (decision.supported || decision.criteria === null) return `Supported: "${claim(treatment, control)}".`
  const { wilcoxon, interval, solved } = decision.criteria
  const [lower] = comparison.effect.ci95
  const fewer = `${treatment} solves ${solved.treatment} tasks against ${solved.control} for ${control}, beyond the margin of ${solved.margin}`
  let detail: string
  if (lower > 0) detail = `It is a loss: ${treatment} costs more per task (the whole interval is above zero).`
  else if (!wilcoxon.met || !interval.met) detail = 'No cost reduction shown.'
  else detail = `Cost is lower, but ${fewer}.`
  if (!solved.met && (lower > 0 || !wilcoxon.met || !interval.met)) detail += ` And ${fewer}.`
  return `Not supported: "${claim(treatment, control)}". ${detail}`
}

/** Why there is no verdict: how many runs are missing, which arm has none, what does not belong. */
export function noVerdictSentences(report: AnalysisReport): string[] {
  const sentences: string[] = []
  const planned = report.tasks * report.seeds * report.arms.length
  if (report.missing > 0) sentences.push(`No verdict: ${report.missing} of ${planned} planned runs are missing.`)
  else sentences.push('No verdict: the recorded runs do not match the plan.')
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
