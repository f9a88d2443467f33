import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Experiment } from '../experiment/schema.ts'
import type { PlannedRun } from '../runs/plan.ts'
import type { RecordedRun } from '../runs/record.ts'
import type { Verdict } from './decision.ts'
import { reportDocument } from './document.ts'
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
  /** Absolute output folder (where runs.jsonl is). */
  readonly outDir: string
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

/** The decision rule's result for the terminal and the files written. */
export interface Conclusion {
  /** Every planned run recorded (and nothing outside the plan). */
  readonly complete: boolean
  /** Planned runs not recorded. */
  readonly missing: number
  readonly verdict: Verdict
  /** The verdict block for the terminal: the sentence, p, interval and solved counts; or `no verdict` and how many runs are missing. */
  readonly text: string
  /** Report files written (report.json, report.md, report.html), absolute; none when incomplete. */
  readonly files: readonly string[]
  /** The whole analysis (what report.json holds). */
  readonly report: AnalysisReport
}

/** The three report files of an analysis: report.json (exact), report.md (readable), report.html (a static page). */
export function renderReportFiles(report: AnalysisReport): { 'report.json': string; 'report.md': string; 'report.html': string } {
  const document = reportDocument(report)
  return {
    'report.json': reportJson(report),
    'report.md': renderMarkdown(document),
    'report.html': renderHtml(document, `task-outcome report: ${report.experiment}`),
  }
}

/**
 * Applies the pre-registered decision rule to an experiment's recorded runs
 * at the end of a suite. With every planned run recorded it writes
 * report.json, report.md and report.html beside runs.jsonl (same runs, same
 * bytes: nothing in them depends on time or machine); otherwise it writes
 * nothing and says `no verdict` and how many runs are missing. Throws a
 * `DataError` when records belong to another experiment or spec, or
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
  const files: string[] = []
  if (report.complete) {
    mkdirSync(input.outDir, { recursive: true })
    for (const [name, text] of Object.entries(renderReportFiles(report))) {
      const file = path.join(input.outDir, name)
      writeFileSync(file, text)
      files.push(file)
    }
  }
  const where = files.length === 0 ? [] : [`  report: ${files.map((file) => path.basename(file)).join(', ')} in ${input.outDir}`]
  return {
    complete: report.complete,
    missing: report.missing,
    verdict: report.decision.verdict,
    text: [verdictBlock(report), ...where].join('\n'),
    files,
    report,
  }
}
