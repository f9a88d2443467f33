import { expect, test } from 'vitest'
import { holmAdjust } from '../../src/stats/holm.ts'

test("matches R's p.adjust(c(0.01, 0.04, 0.03, 0.005), 'holm') = 0.03 0.06 0.06 0.02, in input order", () => {
  const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005])
  expect(adjusted.map((p) => Number(p.toFixed(12)))).toEqual([0.03, 0.06, 0.06, 0.02])
})

test('one p-value is left as it is; adjusted values are capped at 1 and never fall below a smaller raw p', () => {
  expect(holmAdjust([0.2])).toEqual([0.2])
  expect(holmAdjust([0.5, 0.6, 0.7])).toEqual([1, 1, 1])
  expect(holmAdjust([])).toEqual([])
})

test('refuses a p-value outside [0, 1]', () => {
  expect(() => holmAdjust([0.1, 1.2])).toThrow(/p-value 1 is 1.2/)
})
