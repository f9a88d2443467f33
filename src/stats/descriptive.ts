import jStat from 'jstat'

/** The arithmetic mean; null for no values. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null
  let sum = 0
  for (const value of values) sum += value
  return sum / values.length
}

/** The sample standard deviation (n − 1 denominator, jStat); null for fewer than two values. */
export function sampleStandardDeviation(values: readonly number[]): number | null {
  if (values.length < 2) return null
  return jStat.stdev(values, true)
}
