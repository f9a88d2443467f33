import path from 'node:path'

/** The artifacts folder of a run, relative to the output folder (git-ignored). */
export function artifactsPath(run: { task: string; arm: string; seed: number }): string {
  return path.posix.join('artifacts', run.task, run.arm, `seed-${run.seed}`)
}

/** Where a run's transcript is kept, relative to the output folder: the `transcript` a record names. */
export function transcriptPath(run: { task: string; arm: string; seed: number }): string {
  return path.posix.join(artifactsPath(run), 'transcript.jsonl')
}
