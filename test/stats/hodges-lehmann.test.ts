import seedrandom from 'seedrandom'
import { describe, expect, test } from 'vitest'
import { hodgesLehmann } from '../../src/stats/hodges-lehmann.ts'

/**
 * The references, written independently of the implementation: every Walsh
 * average listed by a double loop; the test of d − μ evaluated by enumerating
 * all 2ⁿ sign assignments of its midranks (zeros dropped); the interval taken
 * straight from its definition over every candidate centre.
 */
function walshAverages(d: readonly number[]): number[] {
  const averages: number[] = []
  for (let i = 0; i < d.length; i++) for (let j = i; j < d.length; j++) averages.push((d[i]! + d[j]!) / 2)
  return averages.sort((a, b) => a - b)
}

function bruteMedian(sorted: readonly number[]): number {
  const n = sorted.length
  return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2
}

/** Midranks by counting: rank = (#smaller) + (#equal + 1)/2. */
function bruteRanks(values: readonly number[]): number[] {
  return values.map((value) => values.filter((other) => other < value).length + (values.filter((other) => other === value).length + 1) / 2)
}

function bruteTails(d: readonly number[], mu: number): { less: number; greater: number } {
  const shifted = d.map((value) => value - mu).filter((value) => value !== 0)
  const ranks = bruteRanks(shifted.map(Math.abs))
  const observed = ranks.reduce((sum, rank, i) => (shifted[i]! > 0 ? sum + rank : sum), 0)
  let atMost = 0
  let atLeast = 0
  const n = ranks.length
  for (let mask = 0; mask < 2 ** n; mask++) {
    let v = 0
    for (let i = 0; i < n; i++) if (mask & (1 << i)) v += ranks[i]!
    if (v <= observed) atMost++
    if (v >= observed) atLeast++
  }
  return { less: atMost / 2 ** n, greater: atLeast / 2 ** n }
}

/** The interval by definition: the hull of every accepted centre, an accepted open gap reaching to the Walsh average that bounds it. */
function bruteInterval(d: readonly number[], confidence = 0.95): [number, number] {
  const averages = [...new Set(walshAverages(d))]
  const tail = (1 - confidence) / 2
  const ok = (mu: number) => {
    const { less, greater } = bruteTails(d, mu)
    return less > tail && greater > tail
  }
  const points: { mu: number; low: number; high: number }[] = [{ mu: averages[0]! - 1, low: -Infinity, high: -Infinity }]
  averages.forEach((w, i) => {
    points.push({ mu: w, low: w, high: w })
    const next = averages[i + 1]
    if (next === undefined) points.push({ mu: w + 1, low: Infinity, high: Infinity })
    else points.push({ mu: (w + next) / 2, low: w, high: next })
  })
  const accepted = points.filter((point) => ok(point.mu))
  return [Math.min(...accepted.map((point) => point.low)), Math.max(...accepted.map((point) => point.high))]
}

/** Small integers with many ties and zeros. */
function tiedData(random: () => number, n: number): number[] {
  const spread = 1 + Math.floor(random() * 4)
  return Array.from({ length: n }, () => Math.floor(random() * (2 * spread + 1)) - spread + (random() < 0.3 ? -1 : 0))
}

describe('Hodges–Lehmann estimate and its exact interval', () => {
  test('the estimate is the median of every Walsh average (brute force, data with ties and zeros)', () => {
    const random = seedrandom('hl-estimate')
    for (let trial = 0; trial < 200; trial++) {
      const d = tiedData(random, 1 + Math.floor(random() * 14))
      expect(hodgesLehmann(d).estimate).toBe(bruteMedian(walshAverages(d)))
    }
  })

  test('the interval inverts the exact signed-rank test: the same bounds as enumerating all 2^n sign assignments at every candidate centre (ties and zeros)', () => {
    const random = seedrandom('hl-interval')
    let tied = 0
    let withZeros = 0
    let bounded = 0
    for (let trial = 0; trial < 120; trial++) {
      const d = tiedData(random, 1 + Math.floor(random() * 11))
      const result = hodgesLehmann(d)
      expect(result.method).toBe('exact')
      expect(result.interval).toEqual(bruteInterval(d))
      if (new Set(d.map(Math.abs)).size < d.length) tied++
      if (d.includes(0)) withZeros++
      if (Number.isFinite(result.interval[0]) && Number.isFinite(result.interval[1])) bounded++
    }
    expect(tied).toBeGreaterThan(80)
    expect(withZeros).toBeGreaterThan(50)
    expect(bounded).toBeGreaterThan(30)
  })

  test('at 90% confidence too, on continuous data of n = 12 (no ties)', () => {
    const random = seedrandom('hl-continuous')
    for (let trial = 0; trial < 10; trial++) {
      const d = Array.from({ length: 12 }, () => Math.round((random() - 0.4) * 1e6))
      expect(hodgesLehmann(d, { confidence: 0.9 }).interval).toEqual(bruteInterval(d, 0.9))
    }
  })

  test('five values or fewer can never be rejected at 95% (2 · 2⁻⁵ > 0.05), so the interval is unbounded', () => {
    expect(hodgesLehmann([-5, -4, -3, -2, -1]).interval).toEqual([-Infinity, Infinity])
    expect(hodgesLehmann([-6, -5, -4, -3, -2, -1]).interval[1]).toBeLessThan(0)
  })

  test('beyond about 60 values the exact inversion is too slow, so the normal approximation is used and says so; its bounds sit next to the exact ones', () => {
    const d = Array.from({ length: 61 }, (_, i) => Math.round(Math.sin(i * 7.3) * 1000) - 200)
    const approximate = hodgesLehmann(d)
    expect(approximate.method).toBe('normal approximation')
    const exact = hodgesLehmann(d.slice(0, 40))
    expect(exact.method).toBe('exact')
    expect(approximate.interval[0]).toBeLessThan(approximate.estimate)
    expect(approximate.interval[1]).toBeGreaterThan(approximate.estimate)
  })
})
