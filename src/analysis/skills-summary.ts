import { artifactsPath } from '../runs/artifacts.ts'
import type { RecordedRun } from '../runs/record.ts'

/** Aggregates of one (task, condition) or one condition overall. */
export interface ConditionAggregate {
  readonly runs: number
  readonly passed: number
  /** passed / runs, null with no runs. */
  readonly passRate: number | null
  /** Mean of input + output + cache tokens per run, null when no run reported tokens. */
  readonly meanTokens: number | null
  readonly meanCostUsd: number | null
  readonly meanWallMs: number | null
}

/** One run as summary.json lists it: where its diff and oracle output are kept. */
export interface SweepRun {
  readonly seed: number
  readonly outcome: string
  readonly costUsd: number
  /** Paths relative to the output folder (git-ignored artifacts). */
  readonly diff: string
  readonly verifyStdout: string
  readonly verifyStderr: string
}

/** `summary.json`: per task and condition, the skills benchmark's aggregates and each run's artifacts. */
export interface SweepSummary {
  readonly experiment: string
  readonly specSha256: string | null
  readonly conditions: Readonly<Record<string, ConditionAggregate>>
  readonly tasks: Readonly<Record<string, Readonly<Record<string, ConditionAggregate & { readonly perRun: readonly SweepRun[] }>>>>
}

const mean = (values: readonly number[]): number | null => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length)

/** Aggregates a group of runs. */
export function aggregate(runs: readonly RecordedRun[]): ConditionAggregate {
  const passed = runs.filter((run) => run.solved).length
  const tokens = runs.flatMap((run) => (run.tokens == null ? [] : [run.tokens.input + run.tokens.output + run.tokens.cacheRead + run.tokens.cacheWrite]))
  return {
    runs: runs.length,
    passed,
    passRate: runs.length === 0 ? null : passed / runs.length,
    meanTokens: mean(tokens),
    meanCostUsd: mean(runs.map((run) => run.costUsd)),
    meanWallMs: mean(runs.flatMap((run) => (run.wallMs === undefined ? [] : [run.wallMs]))),
  }
}

/**
 * Builds summary.json from the recorded runs: conditions in the experiment's
 * arm order, tasks by id, runs by seed. Pure: the same runs give the same summary.
 */
export function summariseSweep(experiment: string, arms: readonly string[], records: readonly RecordedRun[]): SweepSummary {
  const tasks = [...new Set(records.map((run) => run.task))].sort()
  const byTask: Record<string, Record<string, ConditionAggregate & { perRun: SweepRun[] }>> = {}
  for (const task of tasks) {
    byTask[task] = {}
    for (const arm of arms) {
      const runs = records.filter((run) => run.task === task && run.arm === arm).sort((a, b) => a.seed - b.seed)
      if (runs.length === 0) continue
      byTask[task][arm] = {
        ...aggregate(runs),
        perRun: runs.map((run) => {
          const dir = artifactsPath(run)
          return {
            seed: run.seed,
            outcome: run.outcome,
            costUsd: run.costUsd,
            diff: `${dir}/diff.patch`,
            verifyStdout: `${dir}/oracle.stdout.txt`,
            verifyStderr: `${dir}/oracle.stderr.txt`,
          }
        }),
      }
    }
  }
  return {
    experiment,
    specSha256: records[0]?.specSha256 ?? null,
    conditions: Object.fromEntries(arms.map((arm) => [arm, aggregate(records.filter((run) => run.arm === arm))])),
    tasks: byTask,
  }
}
