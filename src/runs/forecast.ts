import type { PreparedExperiment } from './prepare.ts'

/** The cost forecast of an experiment's plan, before any money is spent. */
export interface Forecast {
  readonly experiment: string
  /** Planned runs per arm. */
  readonly runsPerArm: Readonly<Record<string, number>>
  readonly runs: number
  /** The per-run estimate used (the experiment's estimate, else its budget cap). */
  readonly perRunUsd: number
  readonly totalUsd: number
  /** The experiment's spending limit, if it sets one. */
  readonly maxBudgetUsd: number | null
  /** True when the forecast exceeds the limit: the experiment must not start. */
  readonly overBudget: boolean
}

/** Forecasts what a prepared experiment will cost: planned runs × the per-run estimate. */
export function forecastExperiment(prepared: PreparedExperiment): Forecast {
  const { spec } = prepared.experiment
  const runsPerArm: Record<string, number> = Object.fromEntries(Object.keys(spec.arms).map((arm) => [arm, 0]))
  for (const run of prepared.plan) runsPerArm[run.arm] = (runsPerArm[run.arm] ?? 0) + 1
  const perRunUsd = spec.estimatedRunCostUsd ?? spec.budgetUsd
  const totalUsd = perRunUsd * prepared.plan.length
  const maxBudgetUsd = spec.maxBudgetUsd ?? null
  return {
    experiment: spec.name,
    runsPerArm,
    runs: prepared.plan.length,
    perRunUsd,
    totalUsd,
    maxBudgetUsd,
    overBudget: maxBudgetUsd !== null && totalUsd > maxBudgetUsd,
  }
}
