import { changeLogLines, contaminationSentence, earlierSpecsSentence } from './change-log.ts'
import type { Comparison } from './comparison.ts'
import { formatNumber, formatP, formatPercent, formatSeeds } from './format.ts'
import { analysisLabels, reportStageLabel } from './document.ts'
import type { AnalysisReport } from './report.ts'
import { integritySentences } from './integrity-summary.ts'
import { sandboxSentences } from './sandbox-summary.ts'
import { offTheBooksSentence } from './egress-summary.ts'
import { noVerdictSentences, verdictSentence } from './sentences.ts'
import { listSkillChecks } from './skill-checks.ts'
import { sequentialLines } from './sequential-text.ts'

/** (task, arm) pairs with missing runs listed in the terminal; report.json lists all. */
const MISSING_SHOWN = 5

function comparisonLines(comparison: Comparison, several: boolean, exploratory: boolean, offTheBooks: string | null): string[] {
  const { primary, effect, solved, mcnemar, power, treatment, control } = comparison
  return [
    `  ${verdictSentence(comparison)}`,
    ...(offTheBooks === null ? [] : [`  ${offTheBooks}`]),
    `    cost: median change ${formatPercent(effect.medianRelativeChange)} (95% CI ${formatPercent(effect.ci95[0])} to ${formatPercent(effect.ci95[1])}); ` +
      `Wilcoxon V = ${formatNumber(primary.statistic, 1)}, p = ${formatP(primary.p)}${several ? ` (Holm ${formatP(primary.pAdjusted)})` : ''}, exact, n = ${primary.n}`,
    `    solved: ${treatment} ${solved.treatment}/${comparison.tasks}, ${control} ${solved.control}/${comparison.tasks} (difference ${solved.difference > 0 ? '+' : ''}${solved.difference}); McNemar b = ${mcnemar.b}, c = ${mcnemar.c}, p = ${formatP(mcnemar.p)}`,
    ...(power.tasksNeeded === null
      ? []
      : [`    power: σ = ${formatNumber(power.sigma!, 4)} → ${power.tasksNeeded} task(s) for ${exploratory ? 'a further' : 'a confirmatory'} run`]),
  ]
}

/** The contamination flag, the change log entry by entry, and the runs of earlier specs left out. */
function preregistrationLines(report: AnalysisReport): string[] {
  const changes = changeLogLines(report)
  const earlier = earlierSpecsSentence(report)
  const contamination = contaminationSentence(report)
  return [
    ...sandboxSentences(report.sandbox).map((line) => `  ${line}`),
    ...integritySentences(report.integrity).map((line) => `  ${line}`),
    ...(contamination === null ? [] : [`  ${contamination}`]),
    ...(changes.length === 0 ? [] : ['  change log:', ...changes.map((line) => `    ${line}`)]),
    ...(earlier === null ? [] : [`  ${earlier}`]),
  ]
}

/**
 * The verdict block the reporter prints when a suite ends: the stage label,
 * the verdict sentence, p, the interval and the solved counts per comparison;
 * or `no verdict` and how many runs are missing.
 */
export function verdictBlock(report: AnalysisReport): string {
  const stage = reportStageLabel(report)
  const lines = [`  verdict: ${report.decision.verdict}${stage === null ? '' : `  [${stage.tag}: ${stage.text}]`}`]
  for (const label of analysisLabels(report)) lines.push(`  ${label.tag}: ${label.text}`)
  if (report.sequential !== null) lines.push(...sequentialLines(report.sequential).map((line, i) => `${i < 2 ? '  ' : '    '}${line}`))
  if (!report.complete) {
    lines.push(...noVerdictSentences(report).map((sentence) => `  ${sentence}`))
    const shown = report.missingRuns.slice(0, MISSING_SHOWN)
    for (const gap of shown) lines.push(`    missing: ${gap.task} › ${gap.arm} › seed ${formatSeeds(gap.seeds)}`)
    if (report.missingRuns.length > shown.length) lines.push(`    … and ${report.missingRuns.length - shown.length} more (task, arm) pairs with missing runs`)
    return [...lines, ...preregistrationLines(report)].join('\n')
  }
  const several = report.comparisons.length > 1
  for (const comparison of report.comparisons)
    lines.push(...comparisonLines(comparison, several, report.analysis.kind === 'exploratory', offTheBooksSentence(report.egress, comparison.treatment, comparison.control)))
  for (const check of listSkillChecks(report.skillChecks)) {
    lines.push(
      `  check ${check.arm} against ${check.reference}: median change ${formatPercent(check.medianRelativeChange)} ` +
        `(95% CI ${formatPercent(check.ci95[0])} to ${formatPercent(check.ci95[1])}), solved ${check.solved.arm} vs ${check.solved.reference} — ` +
        `${check.holds ? 'as expected' : 'NOT as expected'}: ${check.expectation}`,
    )
  }
  return [...lines, ...preregistrationLines(report)].join('\n')
}
