import jStat from 'jstat'

/**
 * Asymptotic relative efficiency of the Wilcoxon signed-rank test against the
 * t-test for normal data (3/π), as rounded in the pre-registration.
 */
export const WILCOXON_EFFICIENCY = 0.955

/** The standard normal quantile z_p (jStat). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`)
  return jStat.normal.inv(p, 0, 1)
}

/** What the confirmatory run is sized for. */
export interface SampleSizeInput {
  /** σ: the sample standard deviation of the per-task relative change in the pilot. */
  readonly sigma: number
  /** δ: the median relative reduction to detect (0.15 = 15%). */
  readonly effect: number
  /** One-sided significance level. */
  readonly alpha: number
  /** Target power. */
  readonly power: number
}

/**
 * Tasks the confirmatory run needs: n = ⌈((z₁₋α + z_power) · σ / δ)² / 0.955⌉,
 * the one-sided normal-theory sample size inflated by the Wilcoxon test's
 * efficiency. σ = 0 gives 0 (no spread: any effect is seen at once).
 */
export function tasksNeeded(input: SampleSizeInput): number {
  const { sigma, effect, alpha, power } = input
  if (!(sigma >= 0 && Number.isFinite(sigma))) throw new RangeError(`tasksNeeded: sigma must be a finite non-negative number, got ${sigma}`)
  if (!(effect > 0)) throw new RangeError(`tasksNeeded: effect must be positive, got ${effect}`)
  const z = normalQuantile(1 - alpha) + normalQuantile(power)
  return Math.ceil(((z * sigma) / effect) ** 2 / WILCOXON_EFFICIENCY)
}
