/**
 * The floor of the exact signed-rank test. With n non-zero differences the
 * smallest one-sided p is P(V = 0) = 2⁻ⁿ: only the assignment with every sign
 * negative reaches V = 0, whatever the ranks (ties included), because every
 * rank is positive. Holm over m comparisons multiplies the smallest p by m, so
 * no comparison of the family can get below m · 2⁻ⁿ, however large the effect.
 */

/** The smallest p the exact one-sided signed-rank test can give with n non-zero differences, Holm-adjusted over m comparisons. */
export function signedRankMinimumP(n: number, m = 1): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`signedRankMinimumP: n must be a whole number, got ${n}`)
  if (!Number.isInteger(m) || m < 1) throw new RangeError(`signedRankMinimumP: m must be a positive whole number, got ${m}`)
  return Math.min(1, m * 2 ** -n)
}

/** The fewest non-zero differences at which the exact one-sided test, Holm over m, can reach p < α: the smallest n with m · 2⁻ⁿ < α. */
export function signedRankTasksForAlpha(alpha: number, m = 1): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`signedRankTasksForAlpha: alpha must be in (0, 1), got ${alpha}`)
  let n = 0
  while (signedRankMinimumP(n, m) >= alpha) n++
  return n
}
