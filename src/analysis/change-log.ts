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
