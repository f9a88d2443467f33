import path from 'node:path'
import { summariseSweep } from '../src/analysis/skills-summary.ts'
import type { PlannedRun } from '../src/runs/plan.ts'
import { currentSpecRuns, type PreparedExperiment } from '../src/runs/prepare.ts'
import type { RecordedRun } from '../src/runs/record.ts'
import { writeConclusion, writeSweepFiles } from '../src/runs/report-files.ts'
import type { ShardId } from '../src/runs/shards.ts'
import { formatArmSummary, summariseArms, type ArmSummary } from '../src/runs/summary.ts'
import { describeVerification } from '../src/runs/transcript-check.ts'
import { NOT_RUN_BUDGET } from '../src/vitest/meta.ts'
import { currentSession } from '../src/vitest/session.ts'
import { readStopNote, type StopNote } from '../src/vitest/stop.ts'
import { currentPlan } from './progress-line.ts'
import { resumeCommand, type ExperimentLedger } from './ledger.ts'

/**
 * The end of an experiment's invocation: the stop and budget lines, then a
 * shard's summary, or the conclusion (the records verified once more, the
 * decision rule applied, the report files written).
 */
export async function endOfExperiment(ledger: ExperimentLedger, shard: ShardId | undefined): Promise<{ lines: string[]; concluded?: Concluded }> {
  const session = currentSession()
  const lines = stopLines(ledger, session === undefined ? undefined : readStopNote(session.dir, ledger.provide.name), shard)
  if (shard !== undefined) return { lines: [...lines, shardLines(ledger, shard)] }
  const concluded = await conclude(ledger, currentPlan(ledger.recorder!.prepared))
  return { lines: [...lines, concluded.text], concluded }
}

/** What the reporter prints at the end of an experiment (the conclusion), and what goes to the job summary. */
export interface Concluded {
  readonly text: string
  readonly verdictText: string
  readonly arms: readonly ArmSummary[]
}

/** The count of this invocation's runs: recorded, skipped, folded and failed. */
function invocationLine(ledger: ExperimentLedger, folded: boolean): string {
  const recorder = ledger.recorder!
  return (
    `  this invocation: ${recorder.appended} run(s) recorded, ${ledger.skipped} already recorded (skipped, not run again)` +
    (folded && recorder.folded > 0 ? `, ${recorder.folded} folded from shard files` : '') +
    (ledger.failed > 0 ? `, ${ledger.failed} failed (nothing recorded; see the failures above)` : '') +
    (ledger.skippedByDesign > 0 ? `, ${ledger.skippedByDesign} skipped by the sequential design (never run, never paid for)` : '')
  )
}

/**
 * Verifies the records once more (the recorder's end read), then applies the
 * decision rule and writes the report files. Throws when the records cannot
 * be trusted.
 */
async function conclude(ledger: ExperimentLedger, plan: readonly PlannedRun[]): Promise<Concluded> {
  const recorder = ledger.recorder!
  const { prepared } = recorder
  const relative = path.relative(ledger.provide.root, recorder.targetFile)
  const read = recorder.finish()
  const all = read.records
  const records = currentSpecRuns(prepared, all)
  const arms = summariseArms(records, Object.keys(prepared.experiment.spec.arms))
  const lines = [
    '',
    `task-outcome · ${ledger.provide.name} · ${relative}`,
    `  ${describeVerification(relative, read.head.lines, read.transcripts)}`,
    invocationLine(ledger, true),
    formatArmSummary(arms),
  ]
  if (records.length < all.length) {
    lines.push(
      `  ${all.length - records.length} run(s) recorded under earlier specs are kept in ${relative} and not pooled: this analysis uses spec ${prepared.specSha256.slice(0, 12)} only`,
    )
  }
  // Loaded here, not at the top: the report's plotting library (Vega) awaits at its module's top level, and a
  // CommonJS vitest.config that require()s the package must not reach it (ERR_REQUIRE_ASYNC_MODULE).
  const { concludeExperiment } = await import('../src/analysis/conclude.ts')
  const conclusion = concludeExperiment({
    experiment: prepared.experiment.spec,
    records,
    // The plan spec.json keeps, the one `analyze` and `power` read (the same as prepared.plan when the spec is this one).
    plan,
    earlierSpecs: earlierSpecCounts(all, prepared.specSha256),
    contamination: prepared.contamination,
    promptAllowances: prepared.tasks.flatMap((task) => (task.kind === 'git-fix' ? (task.metadata.allow ?? []).map(({ word, reason }) => ({ task: task.id, word, reason })) : [])),
  })
  lines.push(writeConclusion(prepared.experiment.outDir, conclusion).text)
  if (prepared.experiment.spec.skills !== undefined) lines.push(writeSweep(prepared, ledger, records, conclusion.complete, conclusion.verdict))
  return { text: lines.join('\n'), verdictText: conclusion.text, arms }
}

/** Skill experiments: summary.json (per task and condition) beside the records, and one line per completed sweep in the history file. */
function writeSweep(prepared: PreparedExperiment, ledger: ExperimentLedger, records: readonly RecordedRun[], complete: boolean, verdict: string): string {
  const { spec, root, outDir } = prepared.experiment
  const summary = summariseSweep(spec.name, Object.keys(spec.arms), records)
  const history =
    complete && ledger.recorder!.appended + ledger.recorder!.folded > 0
      ? {
          file: path.resolve(root, spec.skills?.history ?? path.join(spec.output, 'effectiveness-history.jsonl')),
          line: { experiment: spec.name, specSha256: prepared.specSha256, finishedAt: new Date().toISOString(), runs: records.length, verdict, conditions: summary.conditions },
        }
      : null
  return writeSweepFiles({ root, outDir, summary, history })
}

/** How many runs each earlier spec hash holds (kept, never pooled). */
function earlierSpecCounts(records: readonly RecordedRun[], current: string): { specSha256: string; runs: number }[] {
  const counts = new Map<string, number>()
  for (const record of records) if (record.specSha256 !== current) counts.set(record.specSha256, (counts.get(record.specSha256) ?? 0) + 1)
  return [...counts].map(([specSha256, runs]) => ({ specSha256, runs }))
}

/** A harness failure that stopped the experiment, and runs the budget did not start: said once each. */
function stopLines(ledger: ExperimentLedger, note: StopNote | undefined, shard: ShardId | undefined): string[] {
  const name = ledger.provide.name
  const lines: string[] = []
  if (note !== undefined) {
    lines.push(
      `\ntask-outcome · ${name} STOPPED at ${note.run}: a harness failure no retry can help (${note.reason}): ` +
        `${note.message.split('\n').find((line) => line.trim() !== '' && !line.startsWith('no measurement after')) ?? note.message}\n` +
        `  ${ledger.stopped} run(s) not started, nothing recorded for them. Fix it, then run again to resume: ${resumeCommand(name, shard)}`,
    )
  }
  if (ledger.overBudget > 0) {
    lines.push(
      `\ntask-outcome · ${name} BUDGET: ${ledger.overBudget} run(s) not started (${ledger.budgetNote?.slice(NOT_RUN_BUDGET.length + 2)}). ` +
        `They are missing from the data. To record them, raise maxBudgetUsd and run again: ${resumeCommand(name, shard)}`,
    )
  }
  return lines
}

/** A shard ends without a verdict: its runs are one part of the experiment. */
function shardLines(ledger: ExperimentLedger, shard: ShardId): string {
  return [
    '',
    `task-outcome · ${ledger.provide.name} · shard ${shard.index}/${shard.count} · ${path.relative(ledger.provide.root, ledger.recorder!.targetFile)}`,
    invocationLine(ledger, false),
    '  no verdict from one shard: merge every shard with `npx vitest --merge-reports <blob folder>` (it folds the shard files into runs.jsonl)',
  ].join('\n')
}

/** Ctrl-C (or SIGTERM) exits without onTestRunEnd: what is kept and how to resume. */
export function interruptedLine(ledger: ExperimentLedger, planned: number | undefined, shard: ShardId | undefined): string {
  const recorder = ledger.recorder
  return (
    `\ntask-outcome · ${ledger.provide.name}: interrupted. ${recorder?.appended ?? 0} run(s) recorded in this invocation, ` +
    `${recorder?.recorded.size ?? 0}${planned === undefined ? '' : ` of ${planned} planned`} recorded in all, kept in ${recorder === undefined ? '' : path.relative(ledger.provide.root, recorder.targetFile)}. ` +
    `Runs under way were not recorded. Resume with: ${resumeCommand(ledger.provide.name, shard)}\n`
  )
}
