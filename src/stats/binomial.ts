/**
 * P(X ≤ k) for X ~ Binomial(n, ½), exact: the sum Σᵢ₌₀ᵏ C(n, i) is computed
 * in BigInt and divided by 2ⁿ once, so the only rounding is the final
 * conversion to a double (tails far below 1e-300 included).
 *
 * Not jStat's: `jStat.binomial.cdf` rounds its result to 1e-10 (it returns 0
 * for P(X ≤ 10) with n = 100, truly 1.53e-17) and `jStat.ibeta` is good to
 * about 1e-8 relative.
 */
export function binomialHalfCdf(k: number, n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`binomialHalfCdf: n must be a non-negative integer, got ${n}`)
  if (k < 0) return 0
  if (k >= n) return 1
  const last = Math.floor(k)
  let sum = 0n
  let term = 1n
  for (let i = 0; i <= last; i++) {
    sum += term
    term = (term * BigInt(n - i)) / BigInt(i + 1)
  }
  return ratioToPowerOfTwo(sum, n)
}

/** sum / 2ⁿ as a double: 64 significant bits in integer arithmetic, then one rounding and exact power-of-two scaling. */
function ratioToPowerOfTwo(sum: bigint, n: number): number {
  const bits = sum.toString(2).length
  const shift = n - bits + 64
  let value = Number((sum << BigInt(shift)) >> BigInt(n))
  let scale = shift
  while (scale > 1000) {
    value *= 2 ** -1000
    scale -= 1000
  }
  return value * 2 ** -scale
}
