import stdlibWilcoxon from '@stdlib/stats-wilcoxon'
import seedrandom from 'seedrandom'
import { describe, expect, test } from 'vitest'
import { wilcoxonSignedRank, type Alternative } from '../../src/stats/wilcoxon.ts'
import { midranks } from '../../src/stats/ranks.ts'

/**
 * The reference: enumerate all 2ⁿ sign assignments of the observed midranks
 * (zeros dropped) and count those whose V falls in the tail. Independent of
 * the dynamic programme under test, and exact for n ≤ 16.
 */
function bruteForceP(differences: readonly number[], alternative: Alternative): { statistic: number; p: number } {
  const nonZero = differences.filter((d) => d !== 0)
  const ranks = midranks(nonZero.map(Math.abs))
  const observed = ranks.reduce((sum, rank, i) => (nonZero[i]! > 0 ? sum + rank : sum), 0)
  const n = ranks.length
  let atMost = 0
  let atLeast = 0
  for (let mask = 0; mask < 2 ** n; mask++) {
    let v = 0
    for (let i = 0; i < n; i++) if (mask & (1 << i)) v += ranks[i]!
    if (v <= observed + 1e-9) atMost++
    if (v >= observed - 1e-9) atLeast++
  }
  const less = atMost / 2 ** n
  const greater = atLeast / 2 ** n
  const p = alternative === 'less' ? less : alternative === 'greater' ? greater : Math.min(1, 2 * Math.min(less, greater))
  return { statistic: observed, p }
}

/** Random differences with many ties and zeros: small integers, some negated, some zero. */
function tiedDifferences(random: () => number, n: number): number[] {
  const levels = 1 + Math.floor(random() * 6)
  return Array.from({ length: n }, () => {
    const magnitude = Math.floor(random() * (levels + 1)) * 0.25
    return random() < 0.5 ? -magnitude : magnitude
  })
}

describe('exact Wilcoxon signed-rank test', () => {
  test('matches brute-force enumeration of all 2^n sign assignments on random data with ties and zeros (n ≤ 16)', () => {
    const random = seedrandom('wilcoxon-brute-force')
    let withTies = 0
    let withZeros = 0
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(random() * 16)
      const differences = tiedDifferences(random, n)
      const reference = bruteForceP(differences, 'less')
      for (const alternative of ['less', 'greater', 'two-sided'] as const) {
        const result = wilcoxonSignedRank(differences, { alternative })
        const expected = bruteForceP(differences, alternative)
        expect(result.statistic).toBeCloseTo(expected.statistic, 12)
        expect(result.p).toBeCloseTo(expected.p, 13)
        expect(result.exact).toBe(true)
      }
      expect(wilcoxonSignedRank(differences).p).toBeCloseTo(reference.p, 13)
      if (wilcoxonSignedRank(differences).ties) withTies++
      if (wilcoxonSignedRank(differences).zeros > 0) withZeros++
    }
    // The random data really exercised ties and zeros.
    expect(withTies).toBeGreaterThan(150)
    expect(withZeros).toBeGreaterThan(150)
  })

  test('matches brute force on continuous random data with n = 16 (no ties)', () => {
    const random = seedrandom('wilcoxon-continuous')
    for (let trial = 0; trial < 20; trial++) {
      const differences = Array.from({ length: 16 }, () => random() - 0.6)
      expect(wilcoxonSignedRank(differences).p).toBeCloseTo(bruteForceP(differences, 'less').p, 14)
    }
  })

  test("reproduces R's wilcox.test documentation example: y − x, alternative less, V = 5, p = 0.01953", () => {
    const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3]
    const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    const result = wilcoxonSignedRank(
      y.map((value, i) => value - x[i]!),
      { alternative: 'less' },
    )
    expect(result.statistic).toBe(5)
    expect(result.n).toBe(9)
    expect(result.p).toBeCloseTo(0.01953, 5)
    expect(result.p).toBe(10 / 512)
  })

  test('agrees with @stdlib/stats-wilcoxon where stdlib is exact (no ties, no zeros, n ≤ 50)', () => {
    const random = seedrandom('wilcoxon-stdlib')
    for (let trial = 0; trial < 40; trial++) {
      const n = 5 + Math.floor(random() * 46)
      const shift = random() - 0.5
      const differences = Array.from({ length: n }, () => random() - 0.5 + shift * 0.5)
      for (const alternative of ['less', 'greater'] as const) {
        const ours = wilcoxonSignedRank(differences, { alternative })
        const theirs = stdlibWilcoxon(differences, { alternative })
        expect(ours.statistic).toBe(theirs.statistic)
        expect(ours.p).toBeCloseTo(theirs.pValue, 12)
      }
    }
  })

  test('drops zero differences and reports how many', () => {
    const result = wilcoxonSignedRank([0, -1, -2, 0, -3, 4])
    expect(result.zeros).toBe(2)
    expect(result.n).toBe(4)
    expect(result.statistic).toBe(4)
    expect(result.p).toBe(bruteForceP([-1, -2, -3, 4], 'less').p)
  })

  test('with no non-zero difference V = 0 and p = 1: no evidence', () => {
    expect(wilcoxonSignedRank([0, 0, 0])).toMatchObject({ statistic: 0, p: 1, n: 0, zeros: 3 })
    expect(wilcoxonSignedRank([])).toMatchObject({ statistic: 0, p: 1, n: 0 })
  })

  test('every difference negative gives the smallest p the ranks allow: 2^-n', () => {
    expect(wilcoxonSignedRank([-1, -2, -3, -4, -5, -6]).p).toBe(1 / 64)
    // All tied: one group of midrank 3.5; only the all-negative assignment has V ≤ 0.
    expect(wilcoxonSignedRank([-2, -2, -2, -2, -2, -2]).p).toBe(1 / 64)
  })

  test('lower and upper tails of a large tied sample are consistent: P(V ≤ v) + P(V ≥ v) = 1 + P(V = v)', () => {
    const random = seedrandom('wilcoxon-large')
    const differences = Array.from({ length: 400 }, () => Math.round((random() - 0.45) * 20) / 4)
    const less = wilcoxonSignedRank(differences, { alternative: 'less' })
    const greater = wilcoxonSignedRank(differences, { alternative: 'greater' })
    expect(less.ties).toBe(true)
    // P(V = v) is at most the largest point mass, tiny for n = 400; both tails together just exceed 1.
    expect(less.p + greater.p).toBeGreaterThanOrEqual(1 - 1e-12)
    expect(less.p + greater.p).toBeLessThan(1.01)
  })

  test('refuses a non-finite difference, naming it', () => {
    expect(() => wilcoxonSignedRank([1, Number.NaN])).toThrow(/difference 1 is NaN/)
    expect(() => wilcoxonSignedRank([Infinity])).toThrow(/difference 0 is Infinity/)
  })
})
