import { expect, test } from 'vitest'
import { normalQuantile, tasksNeeded } from '../../src/stats/sample-size.ts'

test('normal quantiles used by the pre-registration: z₀.₉₅ = 1.645, z₀.₈₀ = 0.842', () => {
  expect(normalQuantile(0.95)).toBeCloseTo(1.6448536269514722, 12)
  expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 12)
})

test('n = ⌈((z₁₋α + z_power)·σ/δ)² / 0.955⌉ at α 0.05, power 0.8, δ 0.15', () => {
  // σ = 0.2: ((1.64485 + 0.84162) · 0.2 / 0.15)² / 0.955 = 11.51 → 12
  expect(tasksNeeded({ sigma: 0.2, effect: 0.15, alpha: 0.05, power: 0.8 })).toBe(12)
  // σ = 0.5: ((2.48647 · 0.5 / 0.15)² = 68.69) / 0.955 = 71.9 → 72
  expect(tasksNeeded({ sigma: 0.5, effect: 0.15, alpha: 0.05, power: 0.8 })).toBe(72)
  for (const sigma of [0.05, 0.1, 0.3, 0.7, 1.3]) {
    const expected = Math.ceil((((1.6448536269514722 + 0.8416212335729143) * sigma) / 0.15) ** 2 / 0.955)
    expect(tasksNeeded({ sigma, effect: 0.15, alpha: 0.05, power: 0.8 })).toBe(expected)
  }
})

test('more power, a smaller effect or a stricter alpha each need more tasks', () => {
  const base = { sigma: 0.3, effect: 0.15, alpha: 0.05, power: 0.8 }
  const n = tasksNeeded(base)
  expect(tasksNeeded({ ...base, power: 0.9 })).toBeGreaterThan(n)
  expect(tasksNeeded({ ...base, effect: 0.1 })).toBeGreaterThan(n)
  expect(tasksNeeded({ ...base, alpha: 0.01 })).toBeGreaterThan(n)
})

test('no spread needs no tasks; a non-finite σ is refused', () => {
  expect(tasksNeeded({ sigma: 0, effect: 0.15, alpha: 0.05, power: 0.8 })).toBe(0)
  expect(() => tasksNeeded({ sigma: Infinity, effect: 0.15, alpha: 0.05, power: 0.8 })).toThrow(/sigma must be a finite/)
})
