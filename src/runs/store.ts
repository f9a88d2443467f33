import { channel } from 'node:diagnostics_channel'
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync, writeSync } from 'node:fs'
import path from 'node:path'
import { DataError, describeSchemaIssues } from '../errors.ts'
import { anchorOf, anchorPath, checkAnchor, readAnchor, writeAnchor } from './anchor.ts'
import { EMPTY_HEAD, GENESIS_SHA256, lineSha256, type ChainHead } from './chain.ts'
import { contradictions } from './consistency.ts'
import type { PlannedRun } from './plan.ts'
import { MeasuredRunSchema, RecordedRunSchema, type RecordedRun, type RunRecord } from './record.ts'
import { verifyTranscripts, type TranscriptCheck } from './transcript-check.ts'
import { runKey, runLabel } from '../shared/run-label.ts'

/**
 * `runs.jsonl`: one line per recorded run, appended and fsynced at once, never
 * rewritten, each line linked to the one before by `prevSha256` (a hash
 * chain). Every read verifies the chain, each record against itself and the
 * plan, and every transcript present beside the file; the first bad line is a
 * `DataError` naming it and what to do.
 */

/** A last line with no newline: a write cut short. */
export interface TornLine {
  /** Its line number. */
  readonly line: number
  readonly bytes: number
  /** Where it was moved (writers set it aside), or null when the file was only read. */
  readonly setAsideTo: string | null
}

/** What was read from a runs file, and what the read verified. */
export interface RunsFile {
  readonly file: string
  readonly records: readonly RecordedRun[]
  /** Where the chain ends: the next record links to `head.sha256`. */
  readonly head: ChainHead
  readonly transcripts: TranscriptCheck
  readonly torn: TornLine | null
}

/** How a runs file is read. */
export interface ReadRunsOptions {
  /** The experiment's plan: a record of a run outside it, or at another place in it, is a `DataError`. */
  readonly plan?: readonly PlannedRun[]
  /**
   * Read as the recorder does, before it appends: a torn last line is moved to
   * a side file (readers only warn), records without the anchor file are
   * refused, and an anchor one append behind (a crash) is moved up.
   */
  readonly setAsideTorn?: boolean
  /** Where warnings go (default: stderr). */
  readonly warn?: (message: string) => void
}

/**
 * Where each read of a runs file is announced (`{ file }`), for a check of how
 * often an invocation reads and verifies runs.jsonl (a
 * `node:diagnostics_channel`: nothing listens in a normal run).
 */
export const RUNS_READ = channel('task-outcome:runs-read')

/** The runs file of an output folder. */
export function runsFilePath(outDir: string): string {
  return path.join(outDir, 'runs.jsonl')
}

const defaultWarn = (message: string) => void process.stderr.write(`task-outcome: ${message}\n`)

const RESTORE =
  'Records are never edited: restore runs.jsonl from a copy made before the change (a backup, version control, or the shard reports merged again), or move it aside and run the experiment again.'

function planIndex(plan: readonly PlannedRun[]): Map<string, PlannedRun> {
  return new Map(plan.map((run) => [runKey(run), run]))
}

/** Parses runs.jsonl text, verifying the chain, each record and (when given) the plan; returns the records and the head. */
function parseChained(text: string, file: string, plan?: readonly PlannedRun[]): { records: RecordedRun[]; head: ChainHead } {
  const records: RecordedRun[] = []
  const seen = new Map<string, number>()
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  let previous = GENESIS_SHA256
  let bytes = 0
  lines.forEach((line, index) => {
    const at = `${file}:${index + 1}`
    if (line.trim() === '') throw new DataError(`${at}: an empty line; the recorder never writes one, so the file was edited. ${RESTORE}`)
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      throw new DataError(`${at}: not valid JSON (${(error as Error).message}). Each line must be one run record. ${RESTORE}`)
    }
    const parsed = RecordedRunSchema.safeParse(value)
    if (!parsed.success) {
      throw new DataError(`${at}: ${describeSchemaIssues(parsed.error.issues)}`)
    }
    const record = parsed.data as RecordedRun
    if (record.prevSha256 !== previous) {
      const where =
        index === 0
          ? 'line 1 must link to the empty string: a line before it was removed, or it was changed'
          : `it does not link to line ${index} (prevSha256 ${String(record.prevSha256).slice(0, 12)}…, line ${index} hashes to ${previous.slice(0, 12)}…): line ${index} was changed, or a line was removed or inserted between them, after they were recorded`
      const crlf = line.endsWith('\r') ? ' (the line ends in a carriage return: was the file converted to CRLF line endings?)' : ''
      throw new DataError(`${at}: the hash chain breaks here: ${where}${crlf}. ${RESTORE}`)
    }
    // A run is recorded once per spec: after a logged change of the spec, the same (task, arm, seed) is measured again under the new hash.
    const key = `${record.specSha256}\u0000${runKey(record)}`
    const earlier = seen.get(key)
    if (earlier !== undefined) {
      throw new DataError(`${at}: ${runLabel(record)} is already recorded on line ${earlier}: one run is recorded once. ${RESTORE}`)
    }
    seen.set(key, index + 1)
    const found = contradictions(record)
    if (found.length > 0) {
      throw new DataError(`${at}: ${runLabel(record)} contradicts itself (${found.join('; ')}): the harness never writes such a record. ${RESTORE}`)
    }
    records.push(record)
    previous = lineSha256(line)
    bytes += Buffer.byteLength(line) + 1
  })
  if (plan !== undefined) checkPlanned(records, plan, file)
  return { records, head: { lines: records.length, sha256: previous, bytes } }
}

/**
 * Checks that every record (the file's lines, in order) is a run of the plan,
 * at its planned place: a `DataError` naming the first line that is not.
 * Given a spec hash, only that spec's records are checked (runs of earlier
 * specs were planned by them).
 */
export function checkPlanned(records: readonly RecordedRun[], plan: readonly PlannedRun[], file: string, specSha256?: string): void {
  const planned = planIndex(plan)
  records.forEach((record, index) => {
    if (specSha256 !== undefined && record.specSha256 !== specSha256) return
    const at = `${file}:${index + 1}`
    const place = planned.get(runKey(record))
    if (place === undefined) {
      throw new DataError(`${at}: ${runLabel(record)} is not a run of the experiment's plan: a record of another experiment or task set, or written by hand. ${RESTORE}`)
    }
    if (record.order !== undefined && record.order !== place.order) {
      throw new DataError(`${at}: ${runLabel(record)} is recorded at order ${record.order}, but the plan puts it at ${place.order}. ${RESTORE}`)
    }
  })
}

/**
 * Parses runs.jsonl text. A malformed line, a broken link of the hash chain,
 * a (task, arm, seed) recorded twice, a record that contradicts itself, or
 * (given the plan) a run outside it is a `DataError` naming the file and the
 * line. Fields the analysis does not use are kept.
 */
export function parseRuns(text: string, file: string, plan?: readonly PlannedRun[]): RecordedRun[] {
  return parseChained(text, file, plan).records
}

/** Serialises records as runs.jsonl text with their hash chain (what the recorder would have written, in this order). */
export function formatRuns(records: readonly object[]): string {
  let previous = GENESIS_SHA256
  let text = ''
  for (const record of records) {
    const { prevSha256: _old, ...fields } = record as { prevSha256?: string }
    const line = JSON.stringify({ ...fields, prevSha256: previous })
    text += `${line}\n`
    previous = lineSha256(line)
  }
  return text
}

/**
 * Moves a torn last line (no newline) to `<file>.torn-<time>` (`-2`, `-3`, … after it when a side file of that
 * name is there: an earlier one is never overwritten) and truncates the file to the line before it.
 */
function setAsideTornTail(file: string, bytes: Buffer, start: number): string {
  const base = `${file}.torn-${new Date().toISOString().replace(/[:.]/g, '-')}`
  let side = base
  for (let n = 2; ; n++) {
    try {
      writeFileSync(side, bytes.subarray(start), { flag: 'wx' })
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      side = `${base}-${n}`
    }
  }
  const fd = openSync(file, 'r+')
  try {
    ftruncateSync(fd, start)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  return side
}

/**
 * Reads and verifies a runs file (a missing file holds no runs). A torn last
 * line is never a recorded run: it is left out with a warning, and moved to a
 * side file when `setAsideTorn` is set; it never stops the read.
 */
export function readRuns(file: string, options: ReadRunsOptions = {}): RunsFile {
  RUNS_READ.publish({ file })
  const none = { verified: 0, absent: 0, none: 0 }
  if (!existsSync(file)) return { file, records: [], head: EMPTY_HEAD, transcripts: none, torn: null }
  const warn = options.warn ?? defaultWarn
  const bytes = readFileSync(file)
  const end = bytes.lastIndexOf(0x0a) + 1
  let torn: TornLine | null = null
  if (end < bytes.length) {
    const line = bytes.subarray(0, end).reduce((count, byte) => (byte === 0x0a ? count + 1 : count), 0) + 1
    const setAsideTo = options.setAsideTorn === true ? setAsideTornTail(file, bytes, end) : null
    torn = { line, bytes: bytes.length - end, setAsideTo }
    warn(
      `${file}:${line}: the last line has no newline (${torn.bytes} bytes: a write cut short, e.g. the process was killed); it is not a recorded run` +
        (setAsideTo === null ? ' and is left out of this read; the next run of the experiment moves it to a side file' : `; moved it to ${path.basename(setAsideTo)}`),
    )
  }
  const { records, head } = parseChained(bytes.subarray(0, end).toString('utf8'), file, options.plan)
  const anchor = readAnchor(file)
  if (anchor === undefined) {
    if (options.setAsideTorn === true && records.length > 0) {
      throw new DataError(
        `${file}: ${records.length} record(s) but no ${path.basename(anchorPath(file))} beside them: the recorder writes it with every line, so the file was not left by the recorder (copied without it, or written by hand). ` +
          'Analyse it with `task-outcome analyze`, but record new runs into a new output folder.',
      )
    }
  } else if (checkAnchor(file, head, anchor, RESTORE).lagging && options.setAsideTorn === true) {
    writeAnchor(file, anchorOf(head))
  }
  return { file, records, head, transcripts: verifyTranscripts(records, file), torn }
}

/** The last complete line of a file's first `size` bytes, read from the end. */
function lastLine(fd: number, size: number): Buffer | null {
  if (size === 0) return null
  const chunks: Buffer[] = []
  let position = size - 1
  while (position > 0) {
    const length = Math.min(64 * 1024, position)
    const chunk = Buffer.alloc(length)
    readSync(fd, chunk, 0, length, position - length)
    const newline = chunk.lastIndexOf(0x0a)
    if (newline >= 0) {
      chunks.unshift(chunk.subarray(newline + 1))
      return Buffer.concat(chunks)
    }
    chunks.unshift(chunk)
    position -= length
  }
  return Buffer.concat(chunks)
}

function endsWithNewline(fd: number, size: number): boolean {
  const last = Buffer.alloc(1)
  readSync(fd, last, 0, 1, size - 1)
  return last[0] === 0x0a
}

/** Newlines in a file's first `size` bytes (only when no head was given: the recorder always gives one). */
function countLines(fd: number, size: number): number {
  const chunk = Buffer.alloc(Math.min(size, 1024 * 1024))
  let count = 0
  for (let position = 0; position < size; position += chunk.length) {
    const read = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position)
    for (let i = 0; i < read; i++) if (chunk[i] === 0x0a) count++
  }
  return count
}

/** Options of `appendRun`. */
export interface AppendOptions {
  /**
   * The head the writer last saw (from `readRuns` or its previous append). The
   * file must still end there: a line added, removed or changed by anyone else
   * since is a `DataError`, and nothing is appended after it.
   */
  readonly head?: ChainHead
  readonly warn?: (message: string) => void
}

/**
 * Appends one validated record as one line linked to the line before it, and
 * fsyncs it before returning, so a crash right after loses nothing. A record
 * that contradicts itself is refused. Returns the new head.
 */
export function appendRun(file: string, record: RunRecord, options: AppendOptions = {}): ChainHead {
  const what = `${runLabel(record)}`
  const parsed = MeasuredRunSchema.safeParse(record)
  if (!parsed.success) throw new DataError(`refusing to record ${what}: ${describeSchemaIssues(parsed.error.issues)}`)
  const found = contradictions(parsed.data as RecordedRun)
  if (found.length > 0) throw new DataError(`refusing to record ${what}: it contradicts itself (${found.join('; ')})`)
  mkdirSync(path.dirname(file), { recursive: true })
  const fd = openSync(file, 'a+')
  try {
    let size = fstatSync(fd).size
    if (size > 0 && !endsWithNewline(fd, size)) {
      const bytes = readFileSync(file)
      const start = bytes.lastIndexOf(0x0a) + 1
      const side = setAsideTornTail(file, bytes, start)
      ;(options.warn ?? defaultWarn)(`${file}: the last line had no newline (a write cut short); moved it to ${path.basename(side)} before recording ${what}`)
      size = start
    }
    const last = lastLine(fd, size)
    const previous = last === null ? GENESIS_SHA256 : lineSha256(last)
    const expected = options.head
    if (expected !== undefined && (expected.bytes !== size || expected.sha256 !== previous)) {
      throw new DataError(
        `${file}: changed by something other than the recorder since it ${expected.lines === 0 ? 'read it empty' : `wrote line ${expected.lines}`} ` +
          `(now ${size} bytes, then ${expected.bytes}; its last line ${expected.sha256 === previous ? 'is the same' : 'differs'}): ` +
          `refusing to record ${what} after lines it did not write. Find what wrote to the file; ${RESTORE}`,
      )
    }
    const line = JSON.stringify({ ...parsed.data, prevSha256: previous })
    const lineSha = lineSha256(line)
    const lines = expected?.lines ?? countLines(fd, size)
    writeAnchor(file, { lines, sha256: previous, bytes: size, pending: lineSha })
    writeSync(fd, `${line}\n`)
    fsyncSync(fd)
    const head = { lines: lines + 1, sha256: lineSha, bytes: size + Buffer.byteLength(line) + 1 }
    writeAnchor(file, anchorOf(head))
    return head
  } finally {
    closeSync(fd)
  }
}
