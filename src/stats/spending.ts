import { normalQuantile } from './sample-size.ts'
import jStat from 'jstat'

/**
 * Lan–DeMets α-spending functions: α(t) is the share of the one-sided error
 * rate a group-sequential design may have spent by information fraction t
 * (0 < t ≤ 1), with α(1) = α. The boundaries at each look spend what α(t)
 * allows beyond what the earlier looks spent, so the looks need not be fixed
 * in number or place beforehand for the overall error to hold.
 */

/** A spending function by name, or Hwang–Shih–DeCani with parameter γ. */
export type SpendingFunction = 'obrien-fleming' | 'pocock' | { readonly gamma: number }

function normalCdf(z: number): number {
  return jStat.normal.cdf(z, 0, 1)
}

/**
 * α(t), the cumulative error a design may have spent at information fraction t:
 * - `obrien-fleming` (Lan–DeMets): 2 − 2Φ(z₁₋α/₂ / √t), spending almost nothing early;
 * - `pocock` (Lan–DeMets): α · ln(1 + (e − 1) t), spending evenly;
 * - `{ gamma }` (Hwang–Shih–DeCani): α (1 − e^(−γt)) / (1 − e^(−γ)), α·t at γ = 0; γ = −4 is close to
 *   O'Brien–Fleming, γ = 1 to Pocock.
 * These are gsDesign's `sfLDOF`, `sfLDPocock` and `sfHSD`.
 */
export function spentAlpha(spending: SpendingFunction, alpha: number, t: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`spentAlpha: alpha must be in (0, 1), got ${alpha}`)
  if (!(t >= 0 && t <= 1 + 1e-12)) throw new RangeError(`spentAlpha: the information fraction must be in [0, 1], got ${t}`)
  if (t <= 0) return 0
  if (t >= 1) return alpha
  if (spending === 'obrien-fleming') return Math.min(alpha, 2 - 2 * normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t)))
  if (spending === 'pocock') return alpha * Math.log(1 + (Math.E - 1) * t)
  const { gamma } = spending
  if (!Number.isFinite(gamma)) throw new RangeError(`spentAlpha: gamma must be a finite number, got ${gamma}`)
  if (gamma === 0) return alpha * t
  return (alpha * (1 - Math.exp(-gamma * t))) / (1 - Math.exp(-gamma))
}

/** The spending function's name as reports print it. */
export function spendingName(spending: SpendingFunction): string {
  if (spending === 'obrien-fleming') return "O'Brien–Fleming (Lan–DeMets)"
  if (spending === 'pocock') return 'Pocock (Lan–DeMets)'
  return `Hwang–Shih–DeCani (γ = ${spending.gamma})`
}
