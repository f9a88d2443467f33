import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync, existsSync, statSync, readSync, ftruncateSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { DataError, describeSchemaIssues } from '../errors.ts'
import { RecordedRunSchema, RunRecordSchema, runKey, type RecordedRun, type RunRecord } from './record.ts'

/**
 * `runs.jsonl`: one line per recorded run, appended and fsynced at once, never
 * rewritten. The reporter in Vitest's main process is its only writer.
 */

/** What was read from a runs file. */
export interface RunsFile {
  readonly file: string
  readonly records: readonly RecordedRun[]
}

/** The runs file of an output folder. */
export function runsFilePath(outDir: string): string {
  return path.join(outDir, 'runs.jsonl')
}

/**
 * Parses runs.jsonl text. A malformed line is a `DataError` naming the file,
 * the line and the field; a (task, arm, seed) recorded twice under one spec hash is one too.
 * Blank lines are allowed. Fields the analysis does not use are kept.
 */
export function parseRuns(text: string, file: string): RecordedRun[] {
  const records: RecordedRun[] = []
  const seen = new Map<string, number>()
  const lines = text.split('\n')
  lines.forEach((line, index) => {
    const lineNumber = index + 1
    if (line.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      throw new DataError(`${file}:${lineNumber}: not valid JSON (${(error as Error).message}). Each line must be one run record.`)
    }
    const parsed = RecordedRunSchema.safeParse(value)
    if (!parsed.success) {
      throw new DataError(`${file}:${lineNumber}: ${describeSchemaIssues(parsed.error.issues)}`)
    }
    // A run is recorded once per spec: after a logged change of the spec, the same (task, arm, seed) is measured again under the new hash.
    const key = `${parsed.data.specSha256}\u0000${runKey(parsed.data)}`
    const earlier = seen.get(key)
    if (earlier !== undefined) {
      throw new DataError(
        `${file}:${lineNumber}: ${parsed.data.task} › ${parsed.data.arm} › seed ${parsed.data.seed} is already recorded on line ${earlier}`,
      )
    }
    seen.set(key, lineNumber)
    records.push(parsed.data as RecordedRun)
  })
  return records
}

/** Reads a runs file; a missing file holds no runs. */
export function readRuns(file: string): RunsFile {
  if (!existsSync(file)) return { file, records: [] }
  return { file, records: parseRuns(readFileSync(file, 'utf8'), file) }
}

/**
 * A write cut short (the process killed mid-line) leaves a last line with no
 * newline. It was never a recorded run; it is moved to a side file so the
 * next append starts on a fresh line and nothing is lost.
 */
function setAsideTornTail(file: string): void {
  const size = statSync(file).size
  if (size === 0) return
  const fd = openSync(file, 'r+')
  try {
    const last = Buffer.alloc(1)
    readSync(fd, last, 0, 1, size - 1)
    if (last[0] === 0x0a) return
    const text = readFileSync(file)
    const start = text.lastIndexOf(0x0a) + 1
    writeFileSync(`${file}.torn-${Date.now()}`, text.subarray(start))
    ftruncateSync(fd, start)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Appends one validated record as one line and fsyncs it before returning,
 * so a crash right after loses nothing.
 */
export function appendRun(file: string, record: RunRecord): void {
  const parsed = RunRecordSchema.safeParse(record)
  if (!parsed.success) {
    throw new DataError(
      `refusing to record ${record.task} › ${record.arm} › seed ${record.seed}: ${describeSchemaIssues(parsed.error.issues)}`,
    )
  }
  mkdirSync(path.dirname(file), { recursive: true })
  if (existsSync(file)) setAsideTornTail(file)
  const fd = openSync(file, 'a')
  try {
    writeSync(fd, `${JSON.stringify(parsed.data)}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
