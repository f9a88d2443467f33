import { describe, expect, test } from 'vitest'
import { spentAlpha, type SpendingFunction } from '../../src/stats/spending.ts'

describe('α-spending functions', () => {
  test('spend nothing at 0, all of α at 1, and never decrease', () => {
    for (const spending of ['obrien-fleming', 'pocock', { gamma: -4 }, { gamma: 0 }, { gamma: 1 }] as SpendingFunction[]) {
      expect(spentAlpha(spending, 0.05, 0)).toBe(0)
      expect(spentAlpha(spending, 0.05, 1)).toBe(0.05)
      let previous = 0
      for (let t = 0.05; t < 1; t += 0.05) {
        const spent = spentAlpha(spending, 0.05, t)
        expect(spent).toBeGreaterThanOrEqual(previous)
        expect(spent).toBeLessThanOrEqual(0.05)
        previous = spent
      }
    }
  })

  test("match gsDesign's sfLDOF, sfLDPocock and sfHSD at t = ½ (α = 0.025)", () => {
    // sfLDOF: 2 − 2Φ(2.2414 / √½); sfLDPocock: α ln(1 + (e − 1)/2); sfHSD γ = −4: α (1 − e²)/(1 − e⁴).
    expect(spentAlpha('obrien-fleming', 0.025, 0.5)).toBeCloseTo(0.0015255, 6)
    expect(spentAlpha('pocock', 0.025, 0.5)).toBeCloseTo(0.025 * Math.log(1 + (Math.E - 1) / 2), 12)
    expect(spentAlpha({ gamma: -4 }, 0.025, 0.5)).toBeCloseTo((0.025 * (1 - Math.exp(2))) / (1 - Math.exp(4)), 12)
    expect(spentAlpha({ gamma: 0 }, 0.025, 0.5)).toBe(0.0125)
  })

  test('refuses a fraction outside [0, 1] or an α outside (0, 1)', () => {
    expect(() => spentAlpha('pocock', 0.05, 1.5)).toThrow(/information fraction/)
    expect(() => spentAlpha('pocock', 0, 0.5)).toThrow(/alpha/)
  })
})
