import type { RecordedRun } from './record.ts'

/** Where an experiment stands during a Vitest invocation. */
export interface Progress {
  readonly experiment: string
  /** Runs recorded (all files), of the planned runs. */
  readonly recorded: number
  readonly planned: number
  /** Solved and recorded runs per arm, in the experiment's arm order. */
  readonly arms: ReadonlyArray<{ readonly arm: string; readonly solved: number; readonly runs: number }>
  /** What the recorded runs cost, and what the whole plan is forecast to cost. */
  readonly spentUsd: number
  readonly forecastUsd: number
  /** Estimated time left for this invocation's runs, null before the first run ends. */
  readonly etaMs: number | null
}

/** Builds an experiment's progress from its recorded runs. */
export function progressOf(input: {
  experiment: string
  arms: readonly string[]
  records: Iterable<RecordedRun>
  planned: number
  forecastUsd: number
  etaMs: number | null
}): Progress {
  const all = [...input.records]
  return {
    experiment: input.experiment,
    recorded: all.length,
    planned: input.planned,
    arms: input.arms.map((arm) => {
      const own = all.filter((record) => record.arm === arm)
      return { arm, solved: own.filter((record) => record.solved).length, runs: own.length }
    }),
    spentUsd: all.reduce((sum, record) => sum + record.costUsd, 0),
    forecastUsd: input.forecastUsd,
    etaMs: input.etaMs,
  }
}

/** A duration as people read it: `45s`, `3m 10s`, `2h 05m`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`
}

/** The progress line: plain text, no terminal codes (it goes to files and CI logs as it is). */
export function formatProgress(progress: Progress): string {
  const solved = progress.arms.map((arm) => `${arm.arm} ${arm.solved}/${arm.runs}`).join(', ')
  const eta = progress.etaMs === null ? '' : ` · ~${formatDuration(progress.etaMs)} left`
  return (
    `task-outcome · ${progress.experiment}: ${progress.recorded}/${progress.planned} runs recorded · solved ${solved} · ` +
    `$${progress.spentUsd.toFixed(2)} spent of $${progress.forecastUsd.toFixed(2)} forecast${eta}`
  )
}
