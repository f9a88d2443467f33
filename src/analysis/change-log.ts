import type { AnalysisReport } from './report.ts'

/** One line per change-log entry: `2026-10-20 — what changed (why)`. */
export function changeLogLines(report: Pick<AnalysisReport, 'changeLog'>): string[] {
  return report.changeLog.map((entry) => `${entry.date} — ${entry.change} (reason: ${entry.reason})`)
}

/** What the report says of runs recorded under earlier specs (empty when there are none). */
export function earlierSpecsSentence(report: Pick<AnalysisReport, 'earlierSpecs'>): string | null {
  if (report.earlierSpecs.length === 0) return null
  const runs = report.earlierSpecs.reduce((total, spec) => total + spec.runs, 0)
  const specs = report.earlierSpecs.map((spec) => `${spec.specSha256.slice(0, 12)} (${spec.runs} run(s))`).join(', ')
  return `${runs} run(s) recorded under earlier specs (${specs}) are kept in runs.jsonl and not analysed here: runs under different spec hashes are never pooled.`
}

/** What the report says of tasks the model may have seen in training (null when the spec names no cutoff). */
export function contaminationSentence(report: Pick<AnalysisReport, 'contamination'>): string | null {
  const check = report.contamination
  if (check === null) return null
  const flagged =
    check.flagged.length === 0
      ? `no task was fixed on or before the model's training cutoff (${check.trainingCutoff})`
      : `${check.flagged.length} task(s) were fixed on or before the model's training cutoff (${check.trainingCutoff}) and may be in its training data: ` +
        check.flagged.map((task) => `${task.task} (fixed ${task.fixDate})`).join(', ')
  const undated = check.undated.length === 0 ? '' : `; ${check.undated.length} task(s) have no fix date to check (${check.undated.join(', ')})`
  return `Contamination: ${flagged}${undated}.`
}
