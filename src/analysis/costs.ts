/**
 * Costs are compared after rounding to a billionth of a dollar: far below any
 * agent's reported precision, far above float noise. Without it, a mean over
 * seeds summed in a different order (0.1 + 0.2 ≠ 0.3) could turn a zero
 * difference into a tiny non-zero one, or split a tie, and change the exact p.
 */
/** A dollar amount rounded to a billionth of a dollar (as whole nano-dollars / 1e9: one canonical double per grid value, never −0). */
export function roundUsd(usd: number): number {
  const nanoDollars = Math.round(usd * 1e9)
  return nanoDollars === 0 ? 0 : nanoDollars / 1e9
}

/**
 * r = d / control mean cost. A control that cost nothing (only built-in
 * agents can) gives r = 0 when the treatment cost nothing too (no change) and
 * r = +∞ when it cost something: the largest possible increase, so a free
 * control can only count against a claimed saving, never for it.
 */
export function relativeChange(difference: number, controlMean: number): number {
  if (controlMean > 0) return difference / controlMean
  if (difference === 0) return 0
  return difference > 0 ? Infinity : -Infinity
}
