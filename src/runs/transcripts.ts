import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { RecordedRun } from './record.ts'
import { runLabel } from '../shared/run-label.ts'
import { sha256 } from '../shared/sha256.ts'

/**
 * Every recorded run names its transcript (relative to the output folder) and
 * the transcript's SHA-256. A reader that publishes or archives the runs
 * checks each one: the file is there, inside the output folder, and its bytes
 * hash to what the record says.
 */

/** A recorded run whose transcript is not what its record says. */
export interface TranscriptProblem {
  readonly run: string
  readonly transcript: string
  readonly kind: 'missing' | 'mismatch' | 'outside'
  readonly message: string
}

/** The absolute path of a record's transcript, or null when it would lie outside the output folder. */
export function transcriptFile(outDir: string, transcript: string): string | null {
  const file = path.resolve(outDir, transcript)
  const relative = path.relative(outDir, file)
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? null : file
}

/** SHA-256 of bytes, lowercase hex. */

/** Checks the transcript of every record that names one; returns the problems, in runs.jsonl order. */
export function checkTranscripts(outDir: string, records: readonly RecordedRun[]): TranscriptProblem[] {
  const problems: TranscriptProblem[] = []
  for (const record of records) {
    const transcript = record.transcript
    if (transcript === undefined || transcript === null) continue
    const run = runLabel(record)
    const file = transcriptFile(outDir, transcript)
    if (file === null) {
      problems.push({ run, transcript, kind: 'outside', message: `${run}: its transcript path ${transcript} leaves the output folder` })
      continue
    }
    if (!existsSync(file) || !statSync(file).isFile()) {
      problems.push({ run, transcript, kind: 'missing', message: `${run}: its transcript ${transcript} is missing` })
      continue
    }
    const actual = sha256(readFileSync(file))
    if (actual !== record.transcriptSha256) {
      problems.push({
        run,
        transcript,
        kind: 'mismatch',
        message: `${run}: its transcript ${transcript} hashes to ${actual.slice(0, 12)}, but runs.jsonl records ${String(record.transcriptSha256).slice(0, 12)}`,
      })
    }
  }
  return problems
}
