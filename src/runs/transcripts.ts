import { createHash } from 'node:crypto'
import { closeSync, openSync, readSync } from 'node:fs'
import path from 'node:path'
import { DataError } from '../errors.ts'
import type { RecordedRun } from './record.ts'

/** What the transcript check of a read found. */
export interface TranscriptCheck {
  /** Transcripts present beside the runs file whose SHA-256 matches their record. */
  readonly verified: number
  /** Transcripts a record names that are not on this machine (a merged shard's, or not yet fetched): not checked. */
  readonly absent: number
  /** Records of agents that keep no transcript. */
  readonly none: number
}

/** SHA-256 of a file, or null when it does not exist. */
function fileSha256(file: string): string | null {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  try {
    const hash = createHash('sha256')
    const chunk = Buffer.alloc(1024 * 1024)
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hash.update(chunk.subarray(0, read))
    return hash.digest('hex')
  } finally {
    closeSync(fd)
  }
}

/**
 * Checks every transcript a record names against its `transcriptSha256`.
 * Paths are relative to the runs file's folder and must stay inside it. A
 * transcript that is present and differs was changed after its run: a
 * `DataError` naming the record's line. `records` are the file's lines in order.
 */
export function checkTranscripts(records: readonly RecordedRun[], runsFile: string): TranscriptCheck {
  const outDir = path.dirname(runsFile)
  let verified = 0
  let absent = 0
  let none = 0
  records.forEach((record, index) => {
    if (typeof record.transcript !== 'string' || typeof record.transcriptSha256 !== 'string') {
      none++
      return
    }
    const at = `${runsFile}:${index + 1}`
    const file = path.resolve(outDir, record.transcript)
    const inside = path.relative(outDir, file)
    if (inside.startsWith('..') || path.isAbsolute(inside)) {
      throw new DataError(`${at}: transcript "${record.transcript}" is outside the output folder; a record names its transcript relative to runs.jsonl's folder.`)
    }
    const actual = fileSha256(file)
    if (actual === null) {
      absent++
      return
    }
    if (actual !== record.transcriptSha256) {
      throw new DataError(
        `${at}: ${record.task} › ${record.arm} › seed ${record.seed}: its transcript ${record.transcript} no longer matches the transcriptSha256 recorded with it ` +
          `(recorded ${record.transcriptSha256.slice(0, 12)}…, now ${actual.slice(0, 12)}…): the file was changed after its run. ` +
          'Restore the original transcript (a backup, or the published transcript archive); a transcript that is lost can be moved away, and its record is then read as absent.',
      )
    }
    verified++
  })
  return { verified, absent, none }
}

/** One line saying what a read verified: `runs.jsonl: hash chain of 48 line(s) verified; 48 of 48 transcripts match their SHA-256`. */
export function describeVerification(runsFile: string, lines: number, transcripts: TranscriptCheck): string {
  const named = transcripts.verified + transcripts.absent
  const kept = named === 0 ? 'no transcripts to check' : `${transcripts.verified} of ${named} transcript(s) match their SHA-256${transcripts.absent > 0 ? ` (${transcripts.absent} not on this machine, unchecked)` : ''}`
  return `integrity: ${runsFile}: hash chain of ${lines} line(s) verified; ${kept}${transcripts.none > 0 ? `; ${transcripts.none} run(s) keep no transcript` : ''}`
}
