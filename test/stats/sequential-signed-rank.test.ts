import seedrandom from 'seedrandom'
import { describe, expect, test } from 'vitest'
import { midranks } from '../../src/stats/ranks.ts'
import { normalBoundaries } from '../../src/stats/group-sequential-normal.ts'
import { exactSpend, sequentialSignedRank } from '../../src/stats/sequential-signed-rank.ts'
import { spentAlpha, type SpendingFunction } from '../../src/stats/spending.ts'
import { wilcoxonSignedRank } from '../../src/stats/wilcoxon.ts'

/**
 * The reference: enumerate every sign vector of the non-zero differences
 * (2ⁿ of them), recompute each look's V from midranks of the tasks seen by
 * then, and find each boundary by counting, look after look. Independent of
 * the dynamic programme under test.
 */
function bruteForce(differences: readonly number[], looks: readonly number[], fractions: readonly number[], alpha: number, spending: SpendingFunction) {
  const nonZero = differences.map((d, i) => (d !== 0 ? i : -1)).filter((i) => i >= 0)
  const ranksAt = looks.map((tasks) => {
    const seen = nonZero.filter((i) => i < tasks)
    const ranks = midranks(seen.map((i) => Math.abs(differences[i]!)))
    const byTask = new Map(seen.map((task, j) => [task, ranks[j]!]))
    return byTask
  })
  const vectors = 2 ** nonZero.length
  const statistics = looks.map(() => new Float64Array(vectors))
  for (let mask = 0; mask < vectors; mask++) {
    looks.forEach((_, k) => {
      let v = 0
      nonZero.forEach((task, bit) => {
        if (mask & (1 << bit)) v += ranksAt[k]!.get(task) ?? 0
      })
      statistics[k]![mask] = v
    })
  }
  const observed = looks.map((_, k) => nonZero.reduce((sum, task) => (differences[task]! > 0 ? sum + (ranksAt[k]!.get(task) ?? 0) : sum), 0))
  const alive = new Uint8Array(vectors).fill(1)
  let spent = 0
  const out: { critical: number | null; spent: number; adjustedP: number }[] = []
  looks.forEach((_, k) => {
    const allowed = k === looks.length - 1 ? alpha : spentAlpha(spending, alpha, fractions[k]!)
    const values = [...new Set(statistics[k]!)].sort((a, b) => a - b)
    let critical: number | null = null
    let spentHere = 0
    for (const value of values) {
      let count = 0
      for (let mask = 0; mask < vectors; mask++) if (alive[mask] && statistics[k]![mask]! <= value + 1e-9) count++
      if (count / vectors <= allowed - spent + 1e-12) {
        critical = value
        spentHere = count / vectors
      } else break
    }
    let atObserved = 0
    for (let mask = 0; mask < vectors; mask++) if (alive[mask] && statistics[k]![mask]! <= observed[k]! + 1e-9) atObserved++
    out.push({ critical, spent: spent + spentHere, adjustedP: Math.min(1, spent + atObserved / vectors) })
    spent += spentHere
    for (let mask = 0; mask < vectors; mask++) if (critical !== null && statistics[k]![mask]! <= critical + 1e-9) alive[mask] = 0
  })
  return out
}

/** Differences with ties and zeros: small multiples of ¼, some zero, mostly negative. */
function tiedDifferences(random: () => number, n: number): number[] {
  const levels = 1 + Math.floor(random() * 6)
  return Array.from({ length: n }, () => {
    const magnitude = Math.floor(random() * (levels + 1)) * 0.25
    return random() < 0.7 ? -magnitude : magnitude
  })
}

const SPENDINGS: SpendingFunction[] = ['obrien-fleming', 'pocock', { gamma: -2 }, { gamma: 1 }]

describe('exact group-sequential boundaries for the signed-rank test', () => {
  test('equal brute-force enumeration of every sign vector for n ≤ 12, two and three looks, with ties and zeros', () => {
    const random = seedrandom('sequential-brute-force')
    let crossedSomewhere = 0
    let withTies = 0
    for (let trial = 0; trial < 120; trial++) {
      const n = 4 + Math.floor(random() * 9)
      const differences = tiedDifferences(random, n)
      const threeLooks = random() < 0.5 && n >= 6
      const looks = threeLooks ? [Math.floor(n / 3), Math.floor((2 * n) / 3), n] : [Math.ceil(n / 2), n]
      const fractions = looks.map((tasks) => tasks / n)
      const alpha = random() < 0.5 ? 0.05 : 0.2
      const spending = SPENDINGS[trial % SPENDINGS.length]!
      const ours = sequentialSignedRank({ differences, looks, fractions, alpha, spending, method: 'exact' })
      const expected = bruteForce(differences, looks, fractions, alpha, spending)
      expect(ours).toHaveLength(looks.length)
      ours.forEach((look, k) => {
        expect(look.critical, `trial ${trial} look ${k + 1}`).toBe(expected[k]!.critical)
        expect(look.spent).toBeCloseTo(expected[k]!.spent, 13)
        expect(look.spent).toBeLessThanOrEqual(look.allowed + 1e-15)
        expect(look.method).toBe('exact')
        if (look.crossed) crossedSomewhere++
      })
      expect(ours.at(-1)!.adjustedP).toBeCloseTo(expected.at(-1)!.adjustedP, 13)
      if (wilcoxonSignedRank(differences).ties) withTies++
    }
    // The data exercised crossings and ties.
    expect(crossedSomewhere).toBeGreaterThan(10)
    expect(withTies).toBeGreaterThan(60)
  })

  test("each look's p and V are the fixed design's exact test on the tasks seen so far", () => {
    const differences = [-3, -1, 2, -5, -4, 0, -6, -2, -7, 1, -8, -9]
    const looks = sequentialSignedRank({ differences, looks: [6, 12], fractions: [0.5, 1], alpha: 0.05, spending: 'obrien-fleming' })
    for (const look of looks) {
      const fixed = wilcoxonSignedRank(differences.slice(0, look.tasks))
      expect(look.p).toBe(fixed.p)
      expect(look.statistic).toBe(fixed.statistic)
      expect(look.n).toBe(fixed.n)
    }
  })

  test('the first look spends exactly α(t₁) or less, the most a boundary on the exact distribution can', () => {
    const differences = Array.from({ length: 10 }, (_, i) => -(i + 1))
    const [first] = sequentialSignedRank({ differences, looks: [10, 20], fractions: [0.5, 1], alpha: 0.05, spending: 'pocock' })
    const allowed = spentAlpha('pocock', 0.05, 0.5)
    expect(first!.spent).toBeLessThanOrEqual(allowed)
    // One more value of V would spend too much.
    const next = wilcoxonSignedRank([...Array.from({ length: 10 }, (_, i) => -(i + 1))]).p
    expect(next).toBe(2 ** -10)
    expect(first!.critical).not.toBeNull()
    expect(first!.crossed).toBe(true)
  })

  test('no V can cross at a look with too few tasks: the boundary is null and nothing is spent there', () => {
    const [first, second] = sequentialSignedRank({
      differences: [-1, -2, -3, -4, -5, -6, -7, -8, -9, -10],
      looks: [4, 10],
      fractions: [0.4, 1],
      alpha: 0.05,
      spending: 'obrien-fleming',
    })
    expect(first!.critical).toBeNull()
    expect(first!.spent).toBe(0)
    expect(first!.crossed).toBe(false)
    expect(second!.crossed).toBe(true)
  })

  test('Monte Carlo boundaries at n = 20 agree with the exact count within their stated error', () => {
    const random = seedrandom('sequential-monte-carlo')
    let same = 0
    for (let trial = 0; trial < 8; trial++) {
      const differences = Array.from({ length: 20 }, () => Math.round((random() - 0.6) * 40) / 4)
      const input = { differences, looks: [10, 15, 20], fractions: [0.5, 0.75, 1], alpha: 0.05, spending: SPENDINGS[trial % 4]! }
      const exact = sequentialSignedRank({ ...input, method: 'exact' })
      const sampled = sequentialSignedRank({ ...input, method: 'monte-carlo', samples: 100_000, seed: `trial ${trial}` })
      expect(sampled[0]!.method).toBe('exact')
      for (let k = 1; k < 3; k++) {
        const [mc, reference] = [sampled[k]!, exact[k]!]
        expect(mc.method).toBe('monte carlo')
        expect(mc.error).toBeGreaterThan(0)
        // What the sampled boundaries really spend, counted exactly: within the stated error of the estimate, and of α(t).
        const truth = exactSpend(
          differences,
          input.looks,
          sampled.map((look) => look.critical),
        )[k]!
        expect(Math.abs(mc.spent - truth)).toBeLessThanOrEqual(mc.error)
        expect(truth).toBeLessThanOrEqual(mc.allowed + mc.error)
        if (mc.critical === reference.critical) same++
      }
    }
    // Mostly the very same boundaries as the exact count.
    expect(same).toBeGreaterThanOrEqual(12)
  })
})

describe('at large n the exact boundaries approach the normal-approximation ones', () => {
  test("O'Brien–Fleming and Pocock spending at n = 200 (looks at ½ and 1): z of each boundary's nominal level within 0.02 of the normal boundary (gsDesign's)", () => {
    for (const spending of ['obrien-fleming', 'pocock'] as const) {
      const normal = normalBoundaries([0.5, 1], 0.05, spending)
      for (const n of [200]) {
        const random = seedrandom(`large-${n}`)
        const differences = Array.from({ length: n }, () => random() - 0.5)
        const looks = sequentialSignedRank({ differences, looks: [n / 2, n], fractions: [0.5, 1], alpha: 0.05, spending, samples: 200_000, adjusted: false })
        looks.forEach((look, k) => {
          const z = -normalQuantileOf(look.nominalLevel)
          expect(Math.abs(z - normal.upper[k]!), `${spending} n=${n} look ${k + 1}: z ${z} vs ${normal.upper[k]}`).toBeLessThan(0.02)
        })
      }
    }
  })
})

function normalQuantileOf(p: number): number {
  // Acklam-free: invert the standard normal cdf by bisection (the test's own, independent of src).
  let low = -10
  let high = 10
  for (let i = 0; i < 100; i++) {
    const middle = (low + high) / 2
    if (0.5 * erfc(-middle / Math.SQRT2) < p) low = middle
    else high = middle
  }
  return (low + high) / 2
}

function erfc(x: number): number {
  // Numerical Recipes erfcc (fractional error < 1.2e-7).
  const z = Math.abs(x)
  const t = 1 / (1 + 0.5 * z)
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    )
  return x >= 0 ? r : 2 - r
}
