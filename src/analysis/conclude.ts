import type { Experiment } from '../experiment/schema.ts'
import type { PlannedRun } from '../runs/plan.ts'
import type { RecordedRun } from '../runs/record.ts'
import type { Verdict } from './decision.ts'
import { reportDocument, withFigures } from './document.ts'
import { reportFigures } from './plots.ts'
import { renderSvg } from './render-svg.ts'
import { renderHtml } from './render-html.ts'
import { renderMarkdown } from './render-markdown.ts'
import { verdictBlock } from './render-terminal.ts'
import { analyzeRuns, type AnalysisReport } from './report.ts'
import { reportJson } from './report-json.ts'
import { settingsFromExperiment, type Contamination, type EarlierSpecRuns, type PromptAllowanceRow } from './settings.ts'

/** What the reporter hands over when a suite ends. */
export interface ConcludeInput {
  /** The parsed, pre-registered experiment. */
  readonly experiment: Experiment
  /** Everything in runs.jsonl. */
  readonly records: readonly RecordedRun[]
  /** The full plan. */
  readonly plan: readonly PlannedRun[]
  /** Runs recorded under earlier spec hashes (kept in runs.jsonl, not in `records`, never pooled). */
  readonly earlierSpecs?: readonly EarlierSpecRuns[]
  /** Tasks fixed on or before the model's training cutoff (null: the experiment names none). */
  readonly contamination?: Contamination | null
  /** The tasks' prompt allowances (metadata.json `allow`), listed in the report. */
  readonly promptAllowances?: readonly PromptAllowanceRow[]
}

/** The decision rule's result for the terminal, and the report files to write (`runs/report-files.ts` writes them). */
export interface Conclusion {
  /** Every planned run recorded (and nothing outside the plan). */
  readonly complete: boolean
  /** Planned runs not recorded. */
  readonly missing: number
  readonly verdict: Verdict
  /** The verdict block for the terminal: the sentence, p, interval and solved counts; or `no verdict` and how many runs are missing. */
  readonly text: string
  /** The report files' text by name (report.json, report.md, report.html); null when incomplete (nothing to write). */
  readonly reportFiles: ReportFiles | null
  /** The whole analysis (what report.json holds). */
  readonly report: AnalysisReport
}

/** The three report files of an analysis by name. */
export type ReportFiles = {
  readonly 'report.json': string
  readonly 'report.md': string
  readonly 'report.html': string
}

/**
 * The three report files of an analysis: report.json (exact), report.md
 * (readable), report.html (a static page with its figures as inline SVG,
 * drawn from the analysed records). Same records, same bytes.
 */
export function renderReportFiles(report: AnalysisReport, records: readonly RecordedRun[]): ReportFiles {
  const document = reportDocument(report, { runLinks: records })
  const figures = reportFigures(report, records).map((figure) => ({ ...figure, svg: renderSvg(figure.spec) }))
  return {
    'report.json': reportJson(report),
    'report.md': renderMarkdown(withFigures(document, figures, 'markdown')),
    'report.html': renderHtml(withFigures(document, figures, 'html'), `task-outcome report: ${report.experiment}`),
  }
}

/**
 * Applies the pre-registered decision rule to an experiment's recorded runs
 * at the end of a suite. Pure: with every planned run recorded it renders
 * report.json, report.md and report.html (same runs, same bytes: nothing in
 * them depends on the time or machine of the analysis; the one clock reading
 * they carry is the runs' own wall time) for the caller to write; otherwise there
 * are none and the text says `no verdict` and how many runs are missing.
 * Throws a `DataError` when records belong to another experiment or spec, or
 * contradict themselves.
 */
export function concludeExperiment(input: ConcludeInput): Conclusion {
  const settings = {
    ...settingsFromExperiment(input.experiment),
    earlierSpecs: input.earlierSpecs ?? [],
    contamination: input.contamination ?? null,
    promptAllowances: input.promptAllowances ?? [],
  }
  const report = analyzeRuns(input.records, settings, input.plan)
  return {
    complete: report.complete,
    missing: report.missing,
    verdict: report.decision.verdict,
    text: verdictBlock(report),
    reportFiles: report.complete ? renderReportFiles(report, input.records) : null,
    report,
  }
}
