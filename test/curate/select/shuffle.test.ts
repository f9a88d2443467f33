import { describe, expect, it } from 'vitest'
import { DEFAULT_SELECTION_SEED, stratifiedWalkOrder, walkOrder } from '../../../src/curate/select/shuffle.ts'

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

describe('the walk order stratified by repository', () => {
  const mixed = [...['a1', 'b2', 'c3', 'd4', 'e5'].map((fix) => ({ fix, repo: 'widgets' })), ...['f6', '07'].map((fix) => ({ fix, repo: 'gadgets' }))]
  const order = (seed: number) => stratifiedWalkOrder(mixed, seed, (candidate) => candidate.repo)

  it('takes turns between the repositories (by name), each in its own seeded walk, until the smaller one runs out', () => {
    const gadgets = walkOrder(mixed.slice(5), 20261014).map((c) => c.fix)
    const widgets = walkOrder(mixed.slice(0, 5), 20261014).map((c) => c.fix)
    expect(order(20261014).map((c) => c.fix)).toEqual([gadgets[0], widgets[0], gadgets[1], widgets[1], widgets[2], widgets[3], widgets[4]])
  })

  it('holds every candidate once, whatever order the file lists them in', () => {
    const shuffledInput = stratifiedWalkOrder([...mixed].reverse(), 20261014, (candidate) => candidate.repo)
    expect(shuffledInput).toEqual(order(20261014))
    expect(
      order(20261014)
        .map((c) => c.fix)
        .sort(),
    ).toEqual(mixed.map((c) => c.fix).sort())
  })

  it('of one repository is the plain walk order', () => {
    expect(stratifiedWalkOrder(candidates, 20261014, () => 'only')).toEqual(walkOrder(candidates, 20261014))
  })

  it('brute force: any first k of the walk differs between repositories by at most one while both have candidates left', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const walk = order(seed)
      for (let k = 1; k <= 4; k++) {
        const counts = walk.slice(0, k).reduce((sum, c) => sum + (c.repo === 'gadgets' ? 1 : -1), 0)
        expect(Math.abs(counts), `seed ${seed}, k ${k}`).toBeLessThanOrEqual(1)
      }
    }
  })
})
