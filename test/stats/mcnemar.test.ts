import { expect, test } from 'vitest'
import { mcnemarExact } from '../../src/stats/mcnemar.ts'

test("p = min(1, 2·P(X ≤ min(b, c))) with X ~ Binomial(b + c, ½), as R's binom.test(3, 13)", () => {
  // 2 · (1 + 13 + 78 + 286) / 2^13 = 0.09228516
  expect(mcnemarExact(3, 10)).toEqual({ b: 3, c: 10, p: (2 * 378) / 8192 })
  expect(mcnemarExact(10, 3).p).toBe((2 * 378) / 8192)
})

test('symmetric and capped at 1: equal discordant counts give p = 1', () => {
  expect(mcnemarExact(4, 4).p).toBe(1)
  expect(mcnemarExact(0, 1).p).toBe(1)
  expect(mcnemarExact(0, 6).p).toBe(2 / 64)
})

test('no discordant pairs: p = 1', () => {
  expect(mcnemarExact(0, 0)).toEqual({ b: 0, c: 0, p: 1 })
})

test('refuses counts that are not non-negative integers', () => {
  expect(() => mcnemarExact(-1, 2)).toThrow(/b must be a non-negative integer/)
  expect(() => mcnemarExact(1, 2.5)).toThrow(/c must be a non-negative integer/)
})
