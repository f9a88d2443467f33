import { interpolate, quantileSorted, sortedCopy } from './quantile.ts'
import { compareNumbers } from './ranks.ts'
import { SeededIndices } from './seeded-indices.ts'

/** A percentile bootstrap interval for the median. */
export interface BootstrapInterval {
  /** The median of the values themselves. */
  readonly estimate: number
  readonly lower: number
  readonly upper: number
  /** The quantiles of the bootstrap distribution taken as the bounds. */
  readonly probabilities: readonly [number, number]
  readonly resamples: number
  readonly seed: number | string
}

/** How to resample; the defaults are the pre-registration's. */
export interface BootstrapOptions {
  /** Resamples to draw (default 10,000). */
  readonly resamples?: number
  /** The seedrandom seed (default 20261014); the same seed gives the same interval to the digit. */
  readonly seed?: number | string
  /** Quantiles of the bootstrap medians taken as bounds (default 0.025 and 0.975: a 95% interval). */
  readonly probabilities?: readonly [number, number]
}

/**
 * Seeded percentile bootstrap interval for the median of `values`, one value
 * per unit (per task). Each resample draws n unit indices with replacement,
 * `Math.floor(rng.quick() * n)` with `rng = seedrandom(String(seed))` (quick:
 * 32 random bits, ample for any number of tasks, at a third of the cost of a
 * 53-bit draw; drawn in bulk by `SeededIndices`, the same numbers), n draws per resample, resample after resample; its statistic is the sample median
 * (type 7). The bounds are the type-7 quantiles of the resampled medians.
 *
 * Units are resampled whole: a value must already pair everything measured on
 * its unit (the analysis passes each task's relative change, never values
 * paired by list position). Infinite values are allowed (they sort last).
 * The median of a resample is found by counting draws per sorted position,
 * which equals sorting the resample, in O(n) instead of O(n log n).
 */
export function bootstrapMedianInterval(values: readonly number[], options: BootstrapOptions = {}): BootstrapInterval {
  const resamples = options.resamples ?? 10_000
  const seed = options.seed ?? 20261014
  const probabilities = options.probabilities ?? [0.025, 0.975]
  const n = values.length
  if (n === 0) throw new RangeError('bootstrapMedianInterval: no values to resample')
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`bootstrapMedianInterval: resamples must be a positive integer, got ${resamples}`)

  const sorted = sortedCopy(values)
  // position[i]: where values[i] sits in sorted order (ties keep their index order; equal values are interchangeable).
  const order = values.map((_, index) => index).sort((a, b) => compareNumbers(values[a]!, values[b]!) || a - b)
  const position = new Int32Array(n)
  order.forEach((index, rank) => {
    position[index] = rank
  })

  const lowMiddle = Math.floor((n - 1) / 2)
  const fraction = (n - 1) / 2 - lowMiddle
  const random = new SeededIndices(String(seed))
  const draws = new Int32Array(n)
  const counts = new Int32Array(n)
  const medians = new Float64Array(resamples)
  for (let resample = 0; resample < resamples; resample++) {
    counts.fill(0)
    random.fill(draws, n)
    for (let draw = 0; draw < n; draw++) counts[position[draws[draw]!]!]!++
    // Walk the sorted positions until the (lowMiddle)-th and (lowMiddle + 1)-th drawn values (0-based).
    let seen = 0
    let at = 0
    while (seen + counts[at]! <= lowMiddle) seen += counts[at++]!
    const low = sorted[at]!
    let high = low
    if (fraction > 0 && seen + counts[at]! === lowMiddle + 1) {
      at++
      while (counts[at] === 0) at++
      high = sorted[at]!
    }
    medians[resample] = interpolate(low, high, fraction)
  }
  medians.sort()
  return {
    estimate: quantileSorted(sorted, 0.5),
    lower: quantileSorted(medians, probabilities[0]),
    upper: quantileSorted(medians, probabilities[1]),
    probabilities,
    resamples,
    seed,
  }
}
