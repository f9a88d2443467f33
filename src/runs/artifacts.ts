import path from 'node:path'

/**
 * The files a run leaves beside its record, named once: the run writes them
 * (`execute.ts`), the record points at the transcript (`record.ts` through
 * `transcriptPath`), and the report links them (`analysis/document.ts`).
 */

/** The file names in a run's artifacts folder. */
export const ARTIFACT_FILES = {
  /** The agent's stream, line by line as it printed it. */
  transcript: 'transcript.jsonl',
  /** The agent's change as a patch. */
  diff: 'diff.patch',
  /** What the oracle printed. */
  oracleStdout: 'oracle.stdout.txt',
  oracleStderr: 'oracle.stderr.txt',
  /** Every destination the sandbox's proxy refused (written only when it refused one). */
  sandboxDenials: 'sandbox-denials.txt',
  /** In a failed attempt's folder: the harness failure's reason and message. */
  failureReason: 'reason.txt',
} as const

/** The artifacts folder of a run, relative to the output folder (git-ignored). */
export function artifactsPath(run: { task: string; arm: string; seed: number }): string {
  return path.posix.join('artifacts', run.task, run.arm, `seed-${run.seed}`)
}

/** The folder a failed attempt's artifacts are moved to, inside the run's artifacts folder. */
export function failedAttemptFolder(attempt: number): string {
  return `failed-attempt-${attempt}`
}

/** Where a run's transcript is kept, relative to the output folder: the `transcript` a record names. */
export function transcriptPath(run: { task: string; arm: string; seed: number }): string {
  return path.posix.join(artifactsPath(run), ARTIFACT_FILES.transcript)
}
