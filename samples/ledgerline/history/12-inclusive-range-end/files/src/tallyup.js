/**
 * Summaries of a list of entries: totals, per-category totals, average and
 * median amount.
 */

/** Sums in cents, so that 0.1 + 0.2 is 0.3. */
function sum(amounts) {
  return amounts.reduce((total, amount) => total + Math.round(amount * 100), 0) / 100
}

function median(amounts) {
  if (amounts.length === 0) return 0
  const sorted = [...amounts].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

function inRange(date, from, to) {
  return (from === undefined || date >= from) && (to === undefined || date <= to)
}

/**
 * Summarises entries: `{ count, total, average, median, byCategory }`. With
 * `from` and `to` ("YYYY-MM-DD"), only the entries dated from `from` to `to`
 * count.
 */
export function summarize(allEntries, { from, to } = {}) {
  const entries = allEntries.filter((entry) => inRange(entry.date, from, to))
  const amounts = entries.map((entry) => entry.amount)
  const byCategory = {}
  for (const entry of entries) {
    byCategory[entry.category] = sum([byCategory[entry.category] ?? 0, entry.amount])
  }
  return {
    count: entries.length,
    total: sum(amounts),
    average: entries.length === 0 ? 0 : sum(amounts) / entries.length,
    median: median(amounts),
    byCategory,
  }
}
