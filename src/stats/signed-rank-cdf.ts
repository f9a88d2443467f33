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
 * P(S ≤ limit) for S = Σ (0 or wᵢ), each with probability ½ (weights sorted
 * ascending), by the in-place count recursion over partial sums. Two cuts keep
 * it small: a partial sum above `limit` can never come back, so states stop at
 * `limit`; and a partial sum s with s + (the weights still to come) ≤ limit
 * ends at or below `limit` whatever the remaining signs, so its probability is
 * banked and the state is never visited again. Cost: at most
 * Σᵢ min(limit, w₁ + … + wᵢ, wᵢ₊₁ + … + wₙ) additions.
 */
function lowerTail(weights: readonly number[], limit: number): number {
  // probability(sum) = counts[sum] · 2^-unscaled for every state not yet banked.
  const counts = new Float64Array(limit + 1)
  counts[0] = 1
  let unscaled = 0
  let remaining = weights.reduce((sum, weight) => sum + weight, 0)
  let reachable = 0
  let low = 0
  let banked = 0
  for (const weight of weights) {
    remaining -= weight
    reachable += weight
    const top = Math.min(limit, reachable)
    // A positive sign moves low + weight.. up from below; states under low are banked and feed nothing.
    // Descending, so each read is of the previous step's value (unrolled by four: this loop is the cost).
    const stop = low + weight
    let sum = top
    for (; sum - 3 >= stop; sum -= 4) {
      counts[sum]! += counts[sum - weight]!
      counts[sum - 1]! += counts[sum - 1 - weight]!
      counts[sum - 2]! += counts[sum - 2 - weight]!
      counts[sum - 3]! += counts[sum - 3 - weight]!
    }
    for (; sum >= stop; sum--) counts[sum]! += counts[sum - weight]!
    unscaled++
    const certain = Math.min(limit - remaining + 1, top + 1)
    if (certain > low) {
      let mass = 0
      for (let sum = low; sum < certain; sum++) mass += counts[sum]!
      banked += mass * 2 ** -unscaled
      low = certain
    }
    if (unscaled === RESCALE_EVERY) {
      for (let sum = low; sum <= top; sum++) counts[sum]! *= RESCALE
      unscaled = 0
    }
  }
  return banked
}

/**
 * P(V ≤ v) under the null hypothesis, where V is the sum of the ranks given a
 * positive sign. Ranks and v are given doubled (2 × midrank, so integers).
 * Works on whichever tail is shorter (V and T − V share one distribution,
 * T the sum of all ranks), so the cost is at most O(n · min(v, T − v)) in units
 * of the ranks' greatest common divisor (see `lowerTail`).
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
