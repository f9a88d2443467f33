/**
 * Midranks: the rank of each value in ascending order (1-based), ties given
 * the mean of the ranks they span, so tied values share a rank and the ranks
 * still sum to n(n + 1)/2. Values are compared exactly.
 */
export function midranks(values: readonly number[]): number[] {
  const order = values.map((_, index) => index).sort((a, b) => compareNumbers(values[a]!, values[b]!))
  const ranks = new Array<number>(values.length)
  let start = 0
  while (start < order.length) {
    let end = start + 1
    while (end < order.length && values[order[end]!] === values[order[start]!]) end++
    // Positions start..end-1 hold one tie group: ranks start+1..end, mean (start + 1 + end) / 2.
    const rank = (start + 1 + end) / 2
    for (let position = start; position < end; position++) ranks[order[position]!] = rank
    start = end
  }
  return ranks
}

/** Ascending order for numbers, infinities included (subtraction would give NaN for ∞ − ∞). */
export function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0
}
