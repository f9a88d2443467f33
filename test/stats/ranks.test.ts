import { expect, test } from 'vitest'
import { midranks } from '../../src/stats/ranks.ts'

test('midranks give tied values the mean of the ranks they span and keep the rank sum n(n + 1)/2', () => {
  expect(midranks([10, 20, 20, 5, 20, 30])).toEqual([2, 4, 4, 1, 4, 6])
  expect(midranks([1, 1])).toEqual([1.5, 1.5])
  expect(midranks([])).toEqual([])
  const ranks = midranks([3, 1, 3, 3, 2, 2, 9])
  expect(ranks.reduce((a, b) => a + b, 0)).toBe((7 * 8) / 2)
})
