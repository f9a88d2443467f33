import { binomialHalfCdf } from './binomial.ts'

/** An exact McNemar test on discordant pairs. */
export interface McNemarResult {
  /** Pairs only the treatment got right (tasks only the treatment solves). */
  readonly b: number
  /** Pairs only the control got right (tasks only the control solves). */
  readonly c: number
  /** Two-sided exact p: min(1, 2 · P(X ≤ min(b, c))), X ~ Binomial(b + c, ½); 1 when b + c = 0. */
  readonly p: number
}

/**
 * Exact McNemar test: under the null hypothesis each discordant pair falls
 * either way with probability ½, so the smaller count is binomial. Only the
 * discordant pairs matter; concordant ones carry no information on the difference.
 */
export function mcnemarExact(b: number, c: number): McNemarResult {
  for (const [name, value] of [
    ['b', b],
    ['c', c],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`mcnemarExact: ${name} must be a non-negative integer, got ${value}`)
  }
  const p = b + c === 0 ? 1 : Math.min(1, 2 * binomialHalfCdf(Math.min(b, c), b + c))
  return { b, c, p }
}
