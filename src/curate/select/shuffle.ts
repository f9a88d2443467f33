import { seededShuffle } from '../../shared/seeded-shuffle.ts'

/** The pre-registered seed of the task draw. */
export const DEFAULT_SELECTION_SEED = 20261014

/**
 * The walk order of a draw: candidates sorted by commit id, then shuffled with
 * the seed (`seededShuffle`: the pre-registration's seed value and Python's
 * walk, seedrandom's generator, so a draw is reproduced by this harness,
 * `task-outcome select --seed`, not by Python's `random.Random`).
 */
export function walkOrder<T extends { readonly fix: string }>(candidates: readonly T[], seed: number): T[] {
  const sorted = [...candidates].sort((a, b) => (a.fix < b.fix ? -1 : a.fix > b.fix ? 1 : 0))
  return seededShuffle(sorted, seed)
}

/**
 * The walk order of a draw stratified by repository (`select --stratify
 * repository`): each repository's candidates in their own seeded walk order
 * (`walkOrder`, the same seed), then the repositories take turns, in the
 * order of their names, one candidate each, until every list is used up. The
 * first `count` accepted candidates so come as evenly from the repositories as
 * their numbers allow.
 */
export function stratifiedWalkOrder<T extends { readonly fix: string }>(candidates: readonly T[], seed: number, stratum: (candidate: T) => string): T[] {
  const groups = new Map<string, T[]>()
  for (const candidate of candidates) groups.set(stratum(candidate), [...(groups.get(stratum(candidate)) ?? []), candidate])
  const walks = [...groups.keys()].sort().map((name) => walkOrder(groups.get(name)!, seed))
  const order: T[] = []
  for (let turn = 0; order.length < candidates.length; turn++) for (const walk of walks) if (turn < walk.length) order.push(walk[turn]!)
  return order
}
