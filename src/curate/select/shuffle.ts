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
