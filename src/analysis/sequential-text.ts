import { formatNumber, formatP, formatPercent } from './format.ts'
import { stopPhrase, type LookResult, type SequentialAnalysis } from './sequential.ts'

/** The design in one line: looks, spending, futility. */
export function designSentence(analysis: SequentialAnalysis): string {
  const { design } = analysis
  return (
    `sequential design: ${design.looks.length} look(s) at ${design.looks.join(', ')} task(s); efficacy boundaries of the exact signed-rank test from ${design.spending} α-spending` +
    (design.futility === null ? '; no futility rule' : `; futility: ${design.futility}`)
  )
}

/** How the design ended: which look stopped it and why, or that it ran to its last look, or which look it waits for. */
export function outcomeSentence(analysis: SequentialAnalysis): string {
  const stopped = stopPhrase(analysis)
  if (stopped !== null) {
    return (
      `${stopped}; ${analysis.skippedRuns} planned run(s) of the later tasks skipped, never run, never paid for` +
      (analysis.recordedAfterStop > 0 ? `; ${analysis.recordedAfterStop} run(s) recorded after the stop are kept and not analysed` : '')
    )
  }
  if (analysis.pendingLook !== null) return `waiting for look ${analysis.pendingLook} of ${analysis.design.looks.length}: its tasks' runs are not all recorded`
  return `ran to its last look (${analysis.design.looks.length} of ${analysis.design.looks.length})`
}

/** One look: V and p against the boundary, the repeated interval, the solve-rate margin, futility, the action. */
export function lookSentence(look: LookResult): string {
  const boundary =
    look.critical === null ? `no V can cross with ${look.n} non-zero difference(s)` : `stops at V ≤ ${formatNumber(look.critical, 1)} (nominal p ≤ ${formatP(look.nominalLevel)})`
  const futility = look.futility === null ? '' : `; ${look.futility.rule} ${formatNumber(look.futility.value, 3)} vs ${formatNumber(look.futility.threshold, 3)}`
  return (
    `look ${look.look} of ${look.of} (${look.tasks} tasks): V = ${formatNumber(look.statistic, 1)}, p = ${formatP(look.p)}, ${boundary}; ` +
    `spent α ${formatP(look.spent)} of ${formatP(look.allowed)}${look.method === 'monte carlo' ? ` (Monte Carlo, ±${formatP(look.error)})` : ' (exact)'}; ` +
    `repeated ${formatNumber(look.interval.confidence * 100, 1)}% interval ${formatPercent(look.interval.ci[0])} to ${formatPercent(look.interval.ci[1])}; ` +
    `solved ${look.solved.treatment} vs ${look.solved.control}${futility} → ${look.action}`
  )
}

/** The adjusted p and the repeated interval of the look that decided. */
export function adjustedSentence(analysis: SequentialAnalysis): string | null {
  const look = analysis.looks.at(-1)
  if (look === undefined || analysis.adjustedP === null) return null
  return (
    `at look ${look.look}: adjusted p = ${formatP(analysis.adjustedP)} (stage-wise ordering), ` +
    `repeated ${formatNumber(look.interval.confidence * 100, 1)}% interval on the median change ${formatPercent(look.interval.ci[0])} to ${formatPercent(look.interval.ci[1])}`
  )
}

/** Every line the reports print about a sequential design. */
export function sequentialLines(analysis: SequentialAnalysis): string[] {
  const adjusted = adjustedSentence(analysis)
  return [designSentence(analysis), outcomeSentence(analysis), ...analysis.looks.map(lookSentence), ...(adjusted === null ? [] : [adjusted])]
}
