/**
 * Holm's step-down adjustment for m p-values: sorted ascending, the i-th
 * (1-based) becomes max over j ≤ i of min(1, (m − j + 1) · p₍ⱼ₎). Returned in
 * the input order. Rejecting where the adjusted p < α controls the
 * family-wise error rate at α, without assuming independence.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  pValues.forEach((p, index) => {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`holmAdjust: p-value ${index} is ${p}; p-values lie in [0, 1]`)
  })
  const m = pValues.length
  const order = pValues.map((_, index) => index).sort((a, b) => pValues[a]! - pValues[b]! || a - b)
  const adjusted = new Array<number>(m)
  let running = 0
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]!))
    adjusted[index] = running
  })
  return adjusted
}
