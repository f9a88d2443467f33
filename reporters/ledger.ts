import path from 'node:path'
import type { RecordOutcome, Recorder } from '../src/runs/recorder.ts'
import type { RunRecord } from '../src/runs/record.ts'
import { runLabel } from '../src/shared/run-label.ts'
import type { ShardId } from '../src/runs/shards.ts'
import type { TestResult } from 'vitest/node'
import { NOT_RUN_LOOK_PENDING, NOT_RUN_SEQUENTIAL } from '../src/vitest/looks.ts'
import { ALREADY_RECORDED, NOT_RUN_BUDGET, NOT_RUN_STOPPED, type ExperimentProvide } from '../src/vitest/meta.ts'

/**
 * What the reporter tracks for one experiment during a Vitest invocation: the
 * recorder (which owns the files) and the counts its lines print.
 */
export interface ExperimentLedger {
  readonly provide: ExperimentProvide
  /** Set when the invocation starts (`onTestRunStart`): the experiment's one preparation and read. */
  recorder: Recorder | undefined
  /** Cases of this invocation collected so far (a shard's share of the plan). */
  toRun: number
  skipped: number
  failed: number
  stopped: number
  overBudget: number
  budgetNote: string | undefined
  firstStartedAt: number | undefined
  /** True once a case of the experiment was seen or runs were folded: only such experiments are concluded. */
  active: boolean
  /** Case names of this invocation that ended without a record (failed, skipped, filtered): a sequential look cannot wait for them. */
  readonly endedWithoutRecord: Set<string>
  /** Cases a sequential design's stop (or a look not taken) skipped: never run, never paid for. */
  skippedByDesign: number
}

/** A new ledger, nothing counted yet. */
export function newLedger(provide: ExperimentProvide): ExperimentLedger {
  return {
    provide,
    recorder: undefined,
    toRun: 0,
    skipped: 0,
    failed: 0,
    stopped: 0,
    overBudget: 0,
    budgetNote: undefined,
    firstStartedAt: undefined,
    active: false,
    endedWithoutRecord: new Set(),
    skippedByDesign: 0,
  }
}

/** What a finished case that brought no record was. */
export type Unmeasured = 'already recorded' | 'stopped' | 'over budget' | 'skipped by design' | 'failed' | 'other'

/**
 * Counts a finished case (named `name`) that brought no record: already
 * recorded, not run (the experiment stopped, the budget, the sequential
 * design), or failed. A case filtered out (-t, a path filter) is skipped
 * without a note and counts for nothing (undefined). Every case that ended is
 * noted as ended without a record, for the sequential look.
 */
export function countUnmeasured(ledger: ExperimentLedger, name: string, result: TestResult): Unmeasured | undefined {
  if (result.state !== 'pending') ledger.endedWithoutRecord.add(name)
  const note = result.state === 'skipped' ? (result.note ?? '') : ''
  if (note.startsWith(NOT_RUN_SEQUENTIAL) || note.startsWith(NOT_RUN_LOOK_PENDING)) {
    ledger.active = true
    ledger.skippedByDesign++
    return 'skipped by design'
  }
  if ((result.state === 'skipped' && note === '') || result.state === 'pending') return undefined
  ledger.active = true
  const kind: Unmeasured = note.startsWith(ALREADY_RECORDED)
    ? 'already recorded'
    : note.startsWith(NOT_RUN_STOPPED)
      ? 'stopped'
      : note.startsWith(NOT_RUN_BUDGET)
        ? 'over budget'
        : result.state === 'failed'
          ? 'failed'
          : 'other'
  if (kind === 'already recorded') ledger.skipped++
  else if (kind === 'stopped') ledger.stopped++
  else if (kind === 'over budget') {
    ledger.overBudget++
    ledger.budgetNote ??= note
  } else if (kind === 'failed') ledger.failed++
  return kind
}

/** The command that resumes an experiment (the same shard for a shard). */
export function resumeCommand(name: string, shard: ShardId | undefined): string {
  return `npx vitest run --project ${name}${shard === undefined ? '' : ` --shard=${shard.index}/${shard.count}`}`
}

/** Folds the shard files into runs.jsonl (`Recorder.fold`); what to say: the runs appended, and the runs found twice (a warning). */
export function foldShardFiles(ledger: ExperimentLedger, recorder: Recorder): { said?: string; warned?: string } {
  const { appended, conflicts } = recorder.fold()
  const name = ledger.provide.name
  if (appended > 0) ledger.active = true
  return {
    ...(appended > 0 ? { said: `task-outcome · ${name}: ${appended} run(s) from the shard files appended to ${path.relative(ledger.provide.root, recorder.targetFile)}` } : {}),
    ...(conflicts.length > 0 ? { warned: `task-outcome · ${name}: run twice in different shard files, the first kept: ${conflicts.join('; ')}` } : {}),
  }
}

/** The line for a measured run the recorder could not append: why, and where its record is kept. */
export function unrecordedLine(ledger: ExperimentLedger, run: RunRecord, outcome: Extract<RecordOutcome, { kind: 'unrecorded' }>): string {
  return `task-outcome: ${runLabel(run)} was measured but not recorded: ${outcome.error.message}\n  its record is kept in ${path.relative(ledger.provide.root, outcome.keptIn)}`
}
