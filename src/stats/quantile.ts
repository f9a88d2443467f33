import { compareNumbers } from './ranks.ts'

/**
 * The point `fraction` of the way from a to b. Equal ends give that end
 * (also when infinite), and an infinite end wins over a finite one.
 */
export function interpolate(a: number, b: number, fraction: number): number {
  if (fraction === 0 || a === b) return a
  return a + fraction * (b - a)
}

/**
 * The p-quantile of values already sorted ascending, by linear interpolation
 * between order statistics (Hyndman & Fan type 7, R's default): h = (n − 1)p,
 * x₍⌊h⌋₎ + (h − ⌊h⌋)(x₍⌊h⌋+1₎ − x₍⌊h⌋₎).
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new RangeError('quantileSorted: no values')
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantileSorted: p must be in [0, 1], got ${p}`)
  const h = (sorted.length - 1) * p
  const below = Math.floor(h)
  if (below >= sorted.length - 1) return sorted[sorted.length - 1]!
  return interpolate(sorted[below]!, sorted[below + 1]!, h - below)
}

/** Values sorted ascending (a copy; infinities allowed, NaN refused). */
export function sortedCopy(values: readonly number[]): number[] {
  values.forEach((value, index) => {
    if (Number.isNaN(value)) throw new RangeError(`value ${index} is NaN`)
  })
  return [...values].sort(compareNumbers)
}

/** The p-quantile of values (type 7, as `quantileSorted`). */
export function quantile(values: readonly number[], p: number): number {
  return quantileSorted(sortedCopy(values), p)
}

/** The median: the 0.5 quantile (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5)
}
