import seedrandom from 'seedrandom'
import { expect, test } from 'vitest'
import { SeededIndices } from '../../src/stats/seeded-indices.ts'

test('draws exactly what Math.floor(seedrandom(seed).quick() * n) draws, in order, across fills of any length', () => {
  for (const seed of ['20261014', '1', '', 'a longer seed with spaces ∑']) {
    const reference = seedrandom(seed)
    const indices = new SeededIndices(seed)
    for (const [length, n] of [
      [1, 1],
      [7, 2],
      [1000, 1000],
      [333, 97],
      [5000, 4_000_000_000],
      [64, 3],
    ] as const) {
      const drawn = new Int32Array(length)
      indices.fill(drawn, Math.min(n, 2 ** 31 - 1))
      const expected = Array.from({ length }, () => Math.floor(reference.quick() * Math.min(n, 2 ** 31 - 1)))
      expect([...drawn]).toEqual(expected)
    }
  }
})

test('every draw lies in [0, n), and two streams of one seed are independent copies', () => {
  const a = new SeededIndices('x')
  const b = new SeededIndices('x')
  const first = new Int32Array(10_000)
  const second = new Int32Array(10_000)
  a.fill(first, 13)
  b.fill(second, 13)
  expect(first).toEqual(second)
  expect(first.every((index) => index >= 0 && index < 13)).toBe(true)
  expect(new Set(first).size).toBe(13)
})
