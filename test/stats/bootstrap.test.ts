import seedrandom from 'seedrandom'
import { expect, test } from 'vitest'
import { bootstrapMedianInterval } from '../../src/stats/bootstrap.ts'
import { median, quantile } from '../../src/stats/quantile.ts'

/** The textbook version: draw indices with the same seeded stream, copy, sort, take the median; then quantiles. */
function naiveInterval(values: readonly number[], resamples: number, seed: string | number): [number, number] {
  const random = seedrandom(String(seed))
  const medians: number[] = []
  for (let b = 0; b < resamples; b++) {
    const sample = Array.from({ length: values.length }, () => values[Math.floor(random.quick() * values.length)]!)
    medians.push(median(sample))
  }
  return [quantile(medians, 0.025), quantile(medians, 0.975)]
}

test('equals the textbook sort-every-resample bootstrap drawn from the same seeded stream, to the digit', () => {
  const random = seedrandom('bootstrap-data')
  for (const n of [1, 2, 5, 20, 33]) {
    const values = Array.from({ length: n }, () => Math.round((random() - 0.5) * 100) / 100)
    const interval = bootstrapMedianInterval(values, { resamples: 2000, seed: 20261014 })
    const [lower, upper] = naiveInterval(values, 2000, 20261014)
    expect(interval.lower).toBe(lower)
    expect(interval.upper).toBe(upper)
    expect(interval.estimate).toBe(median(values))
  }
})

test('the same seed gives the same interval; another seed another one; defaults are 10,000 resamples and seed 20261014', () => {
  const values = Array.from({ length: 24 }, (_, i) => Math.sin(i * 1.7) * 0.3)
  const a = bootstrapMedianInterval(values)
  const b = bootstrapMedianInterval(values)
  expect(a).toEqual(b)
  expect(a.resamples).toBe(10_000)
  expect(a.seed).toBe(20261014)
  const others = [1, 2, 3, 4, 5].map((seed) => bootstrapMedianInterval(values, { seed }))
  expect(others.some((other) => other.lower !== a.lower || other.upper !== a.upper)).toBe(true)
  expect(a.lower).toBeLessThanOrEqual(a.estimate)
  expect(a.upper).toBeGreaterThanOrEqual(a.estimate)
})

test('one unit, or units all equal, give a point interval', () => {
  expect(bootstrapMedianInterval([0.25], { resamples: 50 })).toMatchObject({ lower: 0.25, upper: 0.25, estimate: 0.25 })
  const constant = bootstrapMedianInterval([-0.1, -0.1, -0.1, -0.1], { resamples: 100 })
  expect([constant.lower, constant.upper]).toEqual([-0.1, -0.1])
})

test('infinite values are resampled like any other and bound the interval from above', () => {
  const interval = bootstrapMedianInterval([Infinity, Infinity, Infinity, -0.2, -0.1], { resamples: 2000 })
  expect(interval.upper).toBe(Infinity)
  expect(interval.estimate).toBe(Infinity)
  expect(interval.lower).toBe(naiveInterval([Infinity, Infinity, Infinity, -0.2, -0.1], 2000, 20261014)[0])
})

test('refuses no values and a non-positive resample count', () => {
  expect(() => bootstrapMedianInterval([])).toThrow(/no values/)
  expect(() => bootstrapMedianInterval([1], { resamples: 0 })).toThrow(/resamples must be a positive integer/)
})
