import { claim, verdictSentence } from '../../analysis/sentences.ts'
import { stageLabel } from '../../analysis/labels.ts'
import type { AnalysisReport } from '../../analysis/report.ts'
import type { ChangeLogEntry } from '../../experiment/schema.ts'
import type { RecordedRun } from '../../runs/record.ts'
import { isScriptedModel } from '../../runs/versions.ts'

/**
 * One entry of `claims.json`: what a published result says and everything a
 * sceptic needs to check it. Every result is written the same way, whatever
 * its verdict: a null or negative result has exactly the fields a supported
 * one has. Only a confirmatory run can be a product claim; a pilot is labelled
 * "pilot", and demo, example and smoke runs say what they are.
 */
export interface ClaimEntry {
  /** The key, with `specSha256`: publishing again under the same spec replaces the entry. */
  readonly experiment: string
  readonly specSha256: string
  /** The stage as pre-registered: `pilot`, `confirmatory`, `smoke`, `demo` or `example`. */
  readonly stage: string
  /** The label every report of that stage carries. */
  readonly label: { readonly tag: string; readonly text: string }
  /** True only for a confirmatory run: every other stage is never quoted as a product claim. */
  readonly productClaim: boolean
  /** Present when the runs were made against the scripted model (`versions.model` `scripted:…`, published with `--demo`): a demonstration, never a claim. */
  readonly demo?: true
  /** The pre-registered claim (one per compared arm, joined by "; "). */
  readonly claim: string
  /** The decision rule's verdict: `supported` or `not supported` (publish refuses data without one). */
  readonly verdict: string
  /** Each compared arm: its claim, verdict, sentence and numbers. */
  readonly comparisons: readonly {
    readonly treatment: string
    readonly control: string
    readonly claim: string
    readonly verdict: string
    readonly sentence: string
    readonly medianRelativeChange: number
    readonly ci95: readonly [number, number]
    readonly p: number
    readonly solved: { readonly treatment: number; readonly control: number; readonly tasks: number }
  }[]
  readonly tasks: number
  readonly seeds: number
  /** The experiment file that declares the spec, and spec.json beside the runs (which keeps its hash and manifest). */
  readonly spec: { readonly file: string | null; readonly exportName: string | null; readonly record: string; readonly sha256: string }
  readonly changeLog: readonly ChangeLogEntry[]
  /** Tasks fixed on or before the model's training cutoff; null when the spec names no cutoff. */
  readonly contamination: AnalysisReport['contamination']
  readonly runs: { readonly file: string; readonly sha256: string; readonly records: number; readonly analysed: number }
  readonly report: { readonly markdown: string; readonly json: string; readonly html: string }
  readonly archive: { readonly file: string; readonly sha256: string; readonly transcripts: number } | null
  /** Reprints report.json byte for byte from the committed runs. */
  readonly command: string
  /** Runs the experiment again (a resume: nothing recorded is run twice). */
  readonly rerun: string
  /** The day it was published (UTC, `YYYY-MM-DD`). */
  readonly date: string
  /** Every distinct version the analysed runs recorded, per field. */
  readonly versions: Readonly<Record<string, readonly string[]>>
}

/** The label of a stage: the report's, and `CONFIRMATORY` for the one stage that carries none. */
export function claimLabel(stage: string | null): { tag: string; text: string } {
  const label = stageLabel(stage as Parameters<typeof stageLabel>[0])
  if (label !== null) return label
  if (stage === 'confirmatory') return { tag: 'CONFIRMATORY', text: 'Pre-registered confirmatory run on tasks the pilot did not use: this is the result to quote.' }
  return { tag: 'UNLABELLED', text: 'The stage is not recorded: not a product claim.' }
}

/** Every distinct value of each `versions` field over the runs, sorted. */
export function distinctVersions(records: readonly RecordedRun[]): Record<string, string[]> {
  const byField = new Map<string, Set<string>>()
  for (const record of records) {
    for (const [field, value] of Object.entries((record.versions ?? {}) as Record<string, unknown>)) {
      if (value === null || value === undefined) continue
      const set = byField.get(field) ?? new Set<string>()
      set.add(typeof value === 'string' ? value : JSON.stringify(value))
      byField.set(field, set)
    }
  }
  return Object.fromEntries([...byField].sort(([a], [b]) => (a < b ? -1 : 1)).map(([field, values]) => [field, [...values].sort()]))
}

/** What `claimEntry` needs besides the report. */
export interface ClaimContext {
  readonly specSha256: string
  readonly specFile: { readonly file: string | null; readonly exportName: string | null; readonly record: string }
  readonly changeLog: readonly ChangeLogEntry[]
  readonly runs: { readonly file: string; readonly sha256: string; readonly records: number }
  readonly analysed: readonly RecordedRun[]
  readonly outDir: string
  readonly archive: ClaimEntry['archive']
  readonly date: string
}

/** The claims.json entry of a complete analysis. Runs against the scripted model give a demo entry, whatever stage the spec names. */
export function claimEntry(report: AnalysisReport, context: ClaimContext): ClaimEntry {
  const stage = report.stage ?? null
  const scripted = context.analysed.some((record) => isScriptedModel(record.versions?.model))
  const comparisons = report.comparisons.map((comparison) => ({
    treatment: comparison.treatment,
    control: comparison.control,
    claim: claim(comparison.treatment, comparison.control),
    verdict: comparison.decision.verdict,
    sentence: verdictSentence(comparison),
    medianRelativeChange: comparison.effect.medianRelativeChange,
    ci95: comparison.effect.ci95,
    p: comparison.primary.pAdjusted,
    solved: { treatment: comparison.solved.treatment, control: comparison.solved.control, tasks: comparison.tasks },
  }))
  return {
    experiment: report.experiment,
    specSha256: context.specSha256,
    stage: stage ?? 'unknown',
    label: scripted ? claimLabel('demo') : claimLabel(stage),
    productClaim: stage === 'confirmatory' && !scripted,
    ...(scripted ? { demo: true as const } : {}),
    claim: comparisons.map((comparison) => comparison.claim).join('; '),
    verdict: report.decision.verdict,
    comparisons,
    tasks: report.tasks,
    seeds: report.seeds,
    spec: { ...context.specFile, sha256: context.specSha256 },
    changeLog: context.changeLog,
    contamination: report.contamination,
    runs: { ...context.runs, analysed: context.analysed.length },
    report: { markdown: `${context.outDir}/report.md`, json: `${context.outDir}/report.json`, html: `${context.outDir}/report.html` },
    archive: context.archive,
    command: `npx task-outcome analyze ${context.outDir} --json`,
    rerun: `npx vitest run --project ${report.experiment}`,
    date: context.date,
    versions: distinctVersions(context.analysed),
  }
}
