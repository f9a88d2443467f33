import { expect, test } from 'vitest'
import { median, quantile } from '../../src/stats/quantile.ts'

test("linear interpolation between order statistics, as R's quantile() type 7", () => {
  const oneToTen = Array.from({ length: 10 }, (_, i) => i + 1)
  // R: quantile(1:10, c(0.025, 0.5, 0.975)) → 1.225 5.5 9.775
  expect(quantile(oneToTen, 0.025)).toBeCloseTo(1.225, 12)
  expect(quantile(oneToTen, 0.5)).toBe(5.5)
  expect(quantile(oneToTen, 0.975)).toBeCloseTo(9.775, 12)
  expect(quantile([3, 1, 2], 0)).toBe(1)
  expect(quantile([3, 1, 2], 1)).toBe(3)
})

test('median of odd and even counts, in any input order', () => {
  expect(median([5, 1, 3])).toBe(3)
  expect(median([4, 1, 3, 2])).toBe(2.5)
  expect(median([7])).toBe(7)
})

test('infinite values sort last and never turn an interpolation into NaN', () => {
  expect(median([1, Infinity, 2])).toBe(2)
  expect(median([1, Infinity])).toBe(Infinity)
  expect(median([Infinity, Infinity, 0, 0])).toBe(Infinity)
})

test('refuses no values, NaN and p outside [0, 1]', () => {
  expect(() => median([])).toThrow(/no values/)
  expect(() => median([1, Number.NaN])).toThrow(/value 1 is NaN/)
  expect(() => quantile([1], 1.5)).toThrow(/p must be in \[0, 1\]/)
})
