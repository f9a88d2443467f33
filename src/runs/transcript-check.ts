import path from 'node:path'
import { DataError } from '../errors.ts'
import type { RecordedRun } from './record.ts'
import { checkTranscripts } from './transcripts.ts'

/** What the transcript check of a read found. */
export interface TranscriptCheck {
  /** Transcripts present beside the runs file whose SHA-256 matches their record. */
  readonly verified: number
  /** Transcripts a record names that are not on this machine (a merged shard's, or not yet fetched): not checked. */
  readonly absent: number
  /** Records of agents that keep no transcript. */
  readonly none: number
}

/**
 * The check every read of runs.jsonl makes: each transcript a record names,
 * where present, must hash to its `transcriptSha256`, and lie inside the
 * output folder. One present and different was changed after its run: a
 * `DataError` naming the record's line. An absent one is counted, not an
 * error (`publish`, which packs them, requires every one). `records` are the
 * file's lines in order.
 */
export function verifyTranscripts(records: readonly RecordedRun[], runsFile: string): TranscriptCheck {
  const outDir = path.dirname(runsFile)
  let named = 0
  let absent = 0
  records.forEach((record, index) => {
    if (typeof record.transcript !== 'string') return
    named++
    for (const problem of checkTranscripts(outDir, [record])) {
      if (problem.kind === 'missing') {
        absent++
        continue
      }
      const at = `${runsFile}:${index + 1}`
      throw new DataError(
        problem.kind === 'outside'
          ? `${at}: ${problem.message}; a record names its transcript relative to runs.jsonl's folder.`
          : `${at}: ${problem.message}: the transcript no longer matches the transcriptSha256 recorded with it, so it was changed after its run. ` +
              'Restore the original transcript (a backup, or the published transcript archive); a transcript that is lost can be moved away, and its record is then read as absent.',
      )
    }
  })
  return { verified: named - absent, absent, none: records.length - named }
}
/** One line saying what a read verified: `integrity: runs.jsonl: hash chain of 48 line(s) verified; 48 of 48 transcript(s) match their SHA-256`. */
export function describeVerification(runsFile: string, lines: number, transcripts: TranscriptCheck): string {
  const named = transcripts.verified + transcripts.absent
  const kept =
    named === 0
      ? 'no transcripts to check'
      : `${transcripts.verified} of ${named} transcript(s) match their SHA-256${transcripts.absent > 0 ? ` (${transcripts.absent} not on this machine, unchecked)` : ''}`
  return `integrity: ${runsFile}: hash chain of ${lines} line(s) verified; ${kept}${transcripts.none > 0 ? `; ${transcripts.none} run(s) keep no transcript` : ''}`
}
