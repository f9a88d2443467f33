import { describe, expect, test } from 'vitest'
import { constantShapeBoundary, crossingProbabilities, futilityBoundaries, normalBoundaries } from '../../src/stats/group-sequential-normal.ts'
import { spentAlpha } from '../../src/stats/spending.ts'
import { normalQuantile } from '../../src/stats/sample-size.ts'

const equallySpaced = (k: number) => Array.from({ length: k }, (_, i) => (i + 1) / k)

describe('normal-approximation group-sequential boundaries', () => {
  test("reproduce Jennison & Turnbull's constants (Table 2.1, C_P and C_B, one-sided α = 0.025, K = 2…5 equally spaced looks)", () => {
    const pocock = [2.178, 2.289, 2.361, 2.413]
    const obrienFleming = [1.977, 2.004, 2.024, 2.04]
    ;[2, 3, 4, 5].forEach((k, i) => {
      expect(constantShapeBoundary(equallySpaced(k), 0.025, 'pocock')[0]).toBeCloseTo(pocock[i]!, 3)
      expect(constantShapeBoundary(equallySpaced(k), 0.025, 'obrien-fleming').at(-1)).toBeCloseTo(obrienFleming[i]!, 2)
    })
    // gsDesign's unit test (Deming 2008): O'Brien–Fleming, K = 4: 4.05, 2.86, 2.34, 2.02.
    const four = constantShapeBoundary(equallySpaced(4), 0.025, 'obrien-fleming').map((b) => Math.round(b * 100) / 100)
    expect(four).toEqual([4.05, 2.86, 2.34, 2.02])
  })

  test("reproduce gsDesign's spending-function bounds (sfLDOF, sfLDPocock, sfHSD γ = −4; one-sided α = 0.025)", () => {
    const cases: Array<[number[], Parameters<typeof normalBoundaries>[2], number[]]> = [
      [[0.5, 1], 'obrien-fleming', [2.9626, 1.9686]],
      [[0.5, 1], 'pocock', [2.157, 2.201]],
      [equallySpaced(3), 'obrien-fleming', [3.7103, 2.5114, 1.993]],
      [equallySpaced(3), { gamma: -4 }, [3.0107, 2.5465, 1.9992]],
    ]
    for (const [fractions, spending, expected] of cases) {
      const { upper } = normalBoundaries(fractions, 0.025, spending)
      upper.forEach((bound, k) => expect(bound).toBeCloseTo(expected[k]!, 3))
    }
  })

  test('each look spends what the spending function allows, and the first bound is Φ⁻¹(1 − α(t₁))', () => {
    const fractions = [0.3, 0.6, 1]
    const bounds = normalBoundaries(fractions, 0.05, { gamma: -2 })
    expect(bounds.upper[0]).toBeCloseTo(normalQuantile(1 - spentAlpha({ gamma: -2 }, 0.05, 0.3)), 8)
    const crossing = crossingProbabilities(fractions, bounds.upper, null)
    let cumulative = 0
    crossing.upper.forEach((p, k) => {
      cumulative += p
      expect(cumulative).toBeCloseTo(bounds.cumulativeAlpha[k]!, 6)
    })
  })

  test("crossing probabilities of repeated testing at 1.96 reproduce gsDesign's gsProbability (0.042 for K = 2, 0.063 for K = 4)", () => {
    const at = (k: number) => crossingProbabilities(equallySpaced(k), Array(k).fill(1.96), Array(k).fill(-1.96)).upper.reduce((a, b) => a + b, 0)
    expect(at(2)).toBeCloseTo(0.042, 3)
    expect(at(4)).toBeCloseTo(0.063, 3)
  })

  test('a fixed design is one look: power at drift z₁₋α + z_power is the target power', () => {
    const theta = normalQuantile(0.95) + normalQuantile(0.8)
    const { upper } = normalBoundaries([1], 0.05, 'obrien-fleming')
    expect(crossingProbabilities([1], upper, null, theta).upper[0]).toBeCloseTo(0.8, 6)
  })

  test('β-spending futility bounds spend β(t) under the drift, and lie below the efficacy bounds', () => {
    const efficacy = normalBoundaries([0.5, 1], 0.05, 'obrien-fleming')
    const theta = 2.6
    const [lower] = futilityBoundaries(efficacy, 0.2, 'pocock', theta)
    expect(lower!).toBeLessThan(efficacy.upper[0]!)
    const stop = crossingProbabilities([0.5, 1], efficacy.upper, [lower!, -Infinity], theta).lower[0]!
    expect(stop).toBeCloseTo(spentAlpha('pocock', 0.2, 0.5), 6)
  })
})
