import { describe, expect, test } from 'vitest'
import { signedRankMinimumP, signedRankTasksForAlpha } from '../../src/stats/signed-rank-floor.ts'
import { wilcoxonSignedRank } from '../../src/stats/wilcoxon.ts'
import { holmAdjust } from '../../src/stats/holm.ts'

describe('the exact signed-rank test floor', () => {
  test('the smallest one-sided p at n is what the test gives when every difference is negative, ties or not', () => {
    for (let n = 1; n <= 12; n++) {
      expect(signedRankMinimumP(n)).toBe(wilcoxonSignedRank(Array.from({ length: n }, (_, i) => -(i + 1))).p)
      expect(signedRankMinimumP(n)).toBe(wilcoxonSignedRank(Array.from({ length: n }, () => -1)).p)
    }
  })

  test('Holm over m comparisons: the floor is m · 2⁻ⁿ, what holmAdjust gives when every comparison sits at the floor', () => {
    expect(signedRankMinimumP(6, 3)).toBe(holmAdjust([2 ** -6, 2 ** -6, 2 ** -6])[0])
    expect(signedRankMinimumP(1, 4)).toBe(1)
  })

  test('at α = 0.05 the test needs 5 non-zero differences (2⁻⁴ = 0.0625); Holm over 4 needs 7', () => {
    expect(signedRankTasksForAlpha(0.05)).toBe(5)
    expect(signedRankMinimumP(4)).toBe(0.0625)
    expect(signedRankTasksForAlpha(0.05, 4)).toBe(7)
    expect(signedRankMinimumP(6, 4)).toBeGreaterThanOrEqual(0.05)
  })
})
