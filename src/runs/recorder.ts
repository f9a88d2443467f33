import path from 'node:path'
import { DataError, TaskOutcomeError } from '../errors.ts'
import { runLabel } from '../shared/run-label.ts'
import { EMPTY_HEAD, type ChainHead } from './chain.ts'
import { checkRecordedRuns, type PreparedExperiment } from './prepare.ts'
import type { RecordedRun, RunRecord } from './record.ts'
import { readRecordedRuns, shardFilePath, specRunKey, withoutChainLink, measured, type RecordedRuns, type ShardId } from './shards.ts'
import { readRecordedSpec, writeSpecFile } from './spec-file.ts'
import { reviseSpecRecord } from './spec-record.ts'
import { appendRun, checkPlanned, readRuns, runsFilePath, type RunsFile } from './store.ts'
import { keepUnrecorded } from './unrecorded.ts'

/**
 * The recorder: the one writer of an output folder during a Vitest
 * invocation. It starts from one read of what is recorded (runs.jsonl and the
 * shard files, verified), appends each measured run the moment its case ends
 * (to runs.jsonl, or to the shard's own file), folds the shard files into
 * runs.jsonl, keeps spec.json, sets a run it cannot append aside in
 * `unrecorded/` (nothing measured is lost), and at the end reads the file
 * once more to check it is still as the recorder left it.
 */

/** What an invocation starts from: the prepared experiment and its records, read and verified once. */
export interface RecorderStart {
  readonly prepared: PreparedExperiment
  /** Where this invocation appends: the shard's own file for a shard, else runs.jsonl. */
  readonly targetFile: string
  readonly read: RecordedRuns
  /** Why the records do not fit the spec (a changed spec, another experiment's runs); undefined when they do. */
  readonly refusal: TaskOutcomeError | undefined
  /** A file holding a run the plan does not (or not at that place); undefined when every run fits. */
  readonly offPlan: TaskOutcomeError | undefined
}

/**
 * Reads and verifies the recorded runs of a prepared experiment, once: every
 * file's chain and transcripts, the resume check (`checkRecordedRuns`) and
 * each file's runs against the plan. The file this invocation appends to is
 * read as its writer reads it (a torn tail set aside). A check that fails is
 * returned, not thrown: the plugin stops the experiment with it, a merge
 * only leaves spec.json alone (and the end's read names a run off the plan).
 */
export function readRecorded(prepared: PreparedExperiment, options: { readonly shard?: ShardId; readonly warn?: (line: string) => void }): RecorderStart {
  const { outDir, root } = prepared.experiment
  const targetFile = options.shard === undefined ? runsFilePath(outDir) : shardFilePath(outDir, options.shard)
  const read = readRecordedRuns(outDir, { file: targetFile, warn: options.warn })
  const refusal = problemOf(() => checkRecordedRuns(prepared, read.records))
  const offPlan = problemOf(() => {
    for (const { file, records } of read.files) checkPlanned(records, prepared.plan, path.relative(root, file), prepared.specSha256)
  })
  return { prepared, targetFile, read, refusal, offPlan }
}

/** The user-facing error a check throws, or undefined when it passes. */
function problemOf(check: () => void): TaskOutcomeError | undefined {
  try {
    check()
    return undefined
  } catch (error) {
    if (!(error instanceof TaskOutcomeError)) throw error
    return error
  }
}

/** What became of a run handed to the recorder. */
export type RecordOutcome =
  | { readonly kind: 'recorded' }
  | { readonly kind: 'already recorded' }
  /** Measured but not appended (the file changed under the recorder): kept in `keptIn`, under `unrecorded/`. */
  | { readonly kind: 'unrecorded'; readonly error: TaskOutcomeError; readonly keptIn: string }

/** The recorder of one experiment for one invocation (see the file's comment). */
export class Recorder {
  readonly prepared: PreparedExperiment
  readonly targetFile: string
  /** Every recorded run (runs.jsonl and shard files), by (spec, task, arm, seed): progress. */
  readonly recorded: Map<string, RecordedRun>
  /** Runs appended to the target file by this invocation. */
  appended = 0
  /** Runs folded from the shard files into runs.jsonl by this invocation. */
  folded = 0
  readonly #start: RecorderStart
  /** (spec, task, arm, seed) keys already in the target file: a run is appended at most once per spec. */
  readonly #inTarget: Set<string>
  /** Where the target file ended after the recorder's last read or append: anything else appended since is refused. */
  #head: ChainHead
  /** Why nothing more can be recorded (the file was changed under the recorder). */
  #refused: TaskOutcomeError | undefined
  readonly #warn: (line: string) => void

  constructor(start: RecorderStart, warn: (line: string) => void) {
    this.#start = start
    this.prepared = start.prepared
    this.targetFile = start.targetFile
    this.#warn = warn
    this.recorded = new Map(start.read.records.map((record) => [specRunKey(record), record]))
    const target = start.read.files.find((file) => file.file === start.targetFile)
    this.#inTarget = new Set((target?.records ?? []).map(specRunKey))
    this.#head = target?.head ?? EMPTY_HEAD
  }

  /**
   * Appends to runs.jsonl every run of the shard files it does not hold yet,
   * in plan order, from the start's read (nothing already in runs.jsonl is
   * touched). Returns how many, and the runs found twice with different
   * measurements (the first kept).
   */
  fold(): { appended: number; conflicts: string[] } {
    const [runsFile, ...shardFiles] = this.#start.read.files
    const candidates = new Map<string, RunRecord>()
    const conflicts: string[] = []
    for (const { records } of shardFiles) {
      for (const record of records) {
        const key = specRunKey(record)
        if (this.#inTarget.has(key)) continue
        const earlier = candidates.get(key)
        if (earlier === undefined) candidates.set(key, withoutChainLink(record))
        else if (measured(earlier as RecordedRun) !== measured(record)) conflicts.push(runLabel(record))
      }
    }
    const ordered = [...candidates.values()].sort((a, b) => a.order - b.order)
    for (const record of ordered) {
      this.#head = appendRun(runsFile!.file, record, { head: this.#head, warn: this.#warn })
      this.#inTarget.add(specRunKey(record))
    }
    this.folded += ordered.length
    return { appended: ordered.length, conflicts }
  }

  /** Appends a measured run once; a run the file cannot take is kept in `unrecorded/` and named. */
  record(run: RunRecord): RecordOutcome {
    const key = specRunKey(run)
    if (this.#inTarget.has(key)) return { kind: 'already recorded' }
    this.#inTarget.add(key)
    try {
      if (this.#refused !== undefined) throw this.#refused
      this.#head = appendRun(this.targetFile, run, { head: this.#head, warn: this.#warn })
    } catch (error) {
      if (!(error instanceof TaskOutcomeError)) throw error
      this.#refused ??= error
      return { kind: 'unrecorded', error, keptIn: keepUnrecorded(this.prepared.experiment.outDir, run) }
    }
    this.recorded.set(key, run as RecordedRun)
    this.appended++
    return { kind: 'recorded' }
  }

  /**
   * Keeps spec.json beside runs.jsonl: the spec's manifest (so a later change
   * can be named file by file), its change log, and its plan (every planned
   * run: what the reporter, `analyze`, `power` and `publish` judge
   * completeness against). It only grows: when the spec changed under
   * recorded runs (and the plugin accepted the change-log entry), the
   * recorded spec moves whole into `earlier`. Checked again against what is
   * recorded now, so a refused change is never written.
   */
  writeSpec(): void {
    const { prepared } = this
    if (this.#start.refusal !== undefined) return
    const records = [...this.recorded.values()]
    try {
      checkRecordedRuns(prepared, records)
    } catch {
      return
    }
    const { root, file: experimentFile, exportName, outDir } = prepared.experiment
    const revised = reviseSpecRecord(
      readRecordedSpec(outDir),
      {
        specSha256: prepared.specSha256,
        manifest: prepared.manifest,
        changeLog: prepared.changeLog,
        source: { file: path.relative(root, experimentFile).split(path.sep).join('/'), exportName },
        plan: prepared.plan.map(({ task, arm, seed, order }) => ({ task, arm, seed, order })),
        ...(prepared.contamination === null ? {} : { contamination: prepared.contamination }),
      },
      records.length,
      new Date(),
    )
    if (revised !== undefined) writeSpecFile(outDir, revised)
  }

  /**
   * The end's read: runs.jsonl verified again (chain, transcripts, plan), and
   * still ending where the recorder's last append left it. Throws when the
   * records cannot be trusted: the file was changed under the recorder, or
   * its read fails.
   */
  finish(): RunsFile {
    const { prepared } = this
    const relative = path.relative(prepared.experiment.root, this.targetFile)
    if (this.#refused !== undefined) throw this.#refused
    const read = readRuns(this.targetFile)
    checkPlanned(read.records, prepared.plan, relative, prepared.specSha256)
    if (read.head.bytes !== this.#head.bytes || read.head.sha256 !== this.#head.sha256) {
      throw new DataError(
        `${relative} changed after the recorder's last append (the recorder's last line is line ${this.#head.lines}; the file now ends at line ${read.head.lines}, and not as the recorder left it). ` +
          'Records are never edited: restore the file as the recorder left it, from a copy.',
      )
    }
    return read
  }
}
