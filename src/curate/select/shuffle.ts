import seedrandom from 'seedrandom'

/** The pre-registered seed of the task draw. */
export const DEFAULT_SELECTION_SEED = 20261014

/**
 * Shuffles a copy of `items` with a seeded generator, the way Python's
 * `random.Random(seed).shuffle` walks the list: Fisher–Yates from the last
 * position down, swapping position i with a uniform j in [0, i].
 *
 * How this maps to the pre-registration's `random.Random(20261014)`: the seed
 * value and the algorithm are the same, the generator is not. Python draws j
 * from a Mersenne Twister seeded with the integer; this draws it from
 * seedrandom's ARC4 generator seeded with the seed's decimal string
 * (`seedrandom('20261014')`), as `floor(u · (i + 1))` for a uniform u in
 * [0, 1). So the order is fixed by the seed and reproducible on any machine,
 * but it is not the order Python would give for the same seed; a draw made by
 * this harness is reproduced by this harness (`task-outcome select --seed`).
 */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const random = seedrandom(String(seed))
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** The walk order of a draw: candidates sorted by commit id, then shuffled with the seed. */
export function walkOrder<T extends { readonly fix: string }>(candidates: readonly T[], seed: number): T[] {
  const sorted = [...candidates].sort((a, b) => (a.fix < b.fix ? -1 : a.fix > b.fix ? 1 : 0))
  return seededShuffle(sorted, seed)
}
