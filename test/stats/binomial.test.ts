import { expect, test } from 'vitest'
import { binomialHalfCdf } from '../../src/stats/binomial.ts'

/** An independent reference: the Binomial(n, ½) distribution by repeated halving convolution in doubles. */
function convolutionCdf(k: number, n: number): number {
  let pmf = [1]
  for (let i = 0; i < n; i++) pmf = Array.from({ length: pmf.length + 1 }, (_, x) => ((pmf[x] ?? 0) + (pmf[x - 1] ?? 0)) / 2)
  return pmf.slice(0, k + 1).reduce((a, b) => a + b, 0)
}

test('P(X ≤ k) for Binomial(n, ½) matches an independent convolution to full precision', () => {
  for (const n of [1, 2, 7, 13, 40, 100, 250]) {
    for (const k of [0, 1, Math.floor(n / 3), Math.floor(n / 2), n - 1]) {
      if (k < 0 || k >= n) continue
      const expected = convolutionCdf(k, n)
      expect(Math.abs(binomialHalfCdf(k, n) - expected) / expected).toBeLessThan(1e-12)
    }
  }
})

test('known values: exact rationals, and tails far below what jStat.binomial.cdf resolves (it rounds to 1e-10)', () => {
  expect(binomialHalfCdf(3, 20)).toBe(1351 / 2 ** 20)
  expect(binomialHalfCdf(0, 1)).toBe(0.5)
  // P(X ≤ 10 | n = 100) = Σ C(100, i≤10) / 2^100 = 19415908147836 / 2^100 ≈ 1.53e-17 (Python's fractions give
  // 1.5316450877189926e-17); jStat.binomial.cdf(10, 100, 0.5) returns 0.
  expect(binomialHalfCdf(10, 100)).toBe(19415908147836 / 2 ** 100)
  expect(binomialHalfCdf(0, 2000)).toBe(0) // 2^-2000 is below the smallest double
  expect(binomialHalfCdf(0, 1000)).toBe(2 ** -1000)
})

test('edges: k < 0 gives 0, k ≥ n gives 1', () => {
  expect(binomialHalfCdf(-1, 5)).toBe(0)
  expect(binomialHalfCdf(5, 5)).toBe(1)
  expect(binomialHalfCdf(0, 0)).toBe(1)
})
