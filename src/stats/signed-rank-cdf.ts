/**
 * The exact null distribution of the signed-rank statistic for given ranks,
 * ties included: each rank is positive or negative with probability ½,
 * independently, so V (the sum of the positive ranks) is a sum of independent
 * "0 or rᵢ" terms. With midranks every rank is a multiple of ½, so the doubled
 * ranks are integers and the distribution is a 0/1-knapsack count over them.
 */

/** Counts are rescaled by this exact power of two every RESCALE_EVERY ranks, so they never overflow. */
const RESCALE_EVERY = 256
const RESCALE = 2 ** -RESCALE_EVERY

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

/**
 * P(S ≤ limit) for S = Σ (0 or wᵢ), each with probability ½, by the in-place
 * count recursion truncated at `limit` (states above it are never needed).
 * Cost: O(n · limit) additions.
 */
function lowerTail(weights: readonly number[], limit: number): number {
  const counts = new Float64Array(limit + 1)
  counts[0] = 1
  let reachable = 0
  let unscaled = 0
  for (const weight of weights) {
    reachable += weight
    const top = Math.min(limit, reachable)
    for (let sum = top; sum >= weight; sum--) counts[sum]! += counts[sum - weight]!
    if (++unscaled === RESCALE_EVERY) {
      for (let sum = 0; sum <= top; sum++) counts[sum]! *= RESCALE
      unscaled = 0
    }
  }
  let total = 0
  for (let sum = 0; sum <= limit; sum++) total += counts[sum]!
  return total * 2 ** -unscaled
}

/**
 * P(V ≤ v) under the null hypothesis, where V is the sum of the ranks given a
 * positive sign. Ranks and v are given doubled (2 × midrank, so integers).
 * Works on whichever tail is shorter (V and T − V share one distribution,
 * T the sum of all ranks), so the cost is O(n · min(v, T − v)) in units of
 * the ranks' greatest common divisor: about 0.3 s for 1,000 distinct ranks.
 */
export function signedRankCdf(doubledRanks: readonly number[], doubledV: number): number {
  for (const rank of doubledRanks) {
    if (!Number.isInteger(rank) || rank <= 0) throw new RangeError(`signedRankCdf: doubled ranks must be positive integers, got ${rank}`)
  }
  const divisor = doubledRanks.reduce(gcd, 0) || 1
  const weights = doubledRanks.map((rank) => rank / divisor).sort((a, b) => a - b)
  const total = weights.reduce((sum, weight) => sum + weight, 0)
  const v = Math.floor(doubledV / divisor)
  if (v < 0) return 0
  if (v >= total) return 1
  if (2 * v <= total) return lowerTail(weights, v)
  // P(V ≤ v) = 1 − P(V ≥ v + 1) = 1 − P(T − V ≥ v + 1) = 1 − P(V ≤ T − v − 1).
  return 1 - lowerTail(weights, total - v - 1)
}
