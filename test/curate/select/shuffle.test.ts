import { describe, expect, it } from 'vitest'
import { DEFAULT_SELECTION_SEED, walkOrder } from '../../../src/curate/select/shuffle.ts'

const candidates = ['c3', 'a1', 'e5', 'b2', 'd4', 'f6', '07', '18'].map((fix) => ({ fix }))

describe('the seeded walk order', () => {
  it('uses the pre-registered seed by default', () => {
    expect(DEFAULT_SELECTION_SEED).toBe(20261014)
  })

  it('is the same for the same seed, whatever order the candidates came in', () => {
    const one = walkOrder(candidates, 20261014).map((c) => c.fix)
    const two = walkOrder([...candidates].reverse(), 20261014).map((c) => c.fix)
    expect(one).toEqual(two)
    expect([...one].sort()).toEqual(candidates.map((c) => c.fix).sort())
  })

  it('is pinned: the candidates sorted by commit id, then the one seeded shuffle (the order main gave before the shuffles were one)', () => {
    expect(walkOrder(candidates, 20261014).map((c) => c.fix)).toEqual(['c3', 'd4', 'b2', '07', 'f6', 'e5', '18', 'a1'])
  })

  it('differs for another seed', () => {
    expect(walkOrder(candidates, 20261014).map((c) => c.fix)).not.toEqual(walkOrder(candidates, 7).map((c) => c.fix))
  })
})
