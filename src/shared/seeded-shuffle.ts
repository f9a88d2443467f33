import seedrandom from 'seedrandom'

/**
 * Shuffles a copy of `items` with a seeded generator: the same seed, the same
 * order, on every machine. The one shuffle of the harness: the run plan's
 * (arm, seed) order within a task and the task draw's walk order both come
 * from it, so a recorded plan or draw is reproduced by this function alone.
 *
 * Fisher–Yates the way Python's `random.Random(seed).shuffle` walks the list:
 * from the last position down, swapping position i with a uniform j in
 * [0, i], drawn as `floor(u · (i + 1))` for a uniform u in [0, 1) from
 * seedrandom's ARC4 generator seeded with the seed's string (a number by its
 * decimal digits). The seed and the walk are Python's, the generator is not:
 * the order is not the one Python would give for the same seed.
 */
export function seededShuffle<T>(items: readonly T[], seed: string | number): T[] {
  return shuffleWith(items, seedrandom(String(seed)))
}

/** The same walk with a generator the caller holds (and draws other numbers from), for a draw within a seeded sequence. */
export function shuffleWith<T>(items: readonly T[], random: () => number): T[] {
  const shuffled = [...items]
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
  }
  return shuffled
}
