/**
 * Number formats for the readable reports (report.md, report.html, the
 * terminal). report.json keeps full precision; these only round for reading.
 */

/** A p-value: four significant digits, scientific below 0.001. */
export function formatP(p: number): string {
  if (p === 0) return '0'
  if (p < 0.001) return p.toExponential(2)
  return String(Number(p.toPrecision(4)))
}

/** A relative change as a signed percentage with one decimal: "-12.3%", "+0.0%", "+∞". */
export function formatPercent(r: number): string {
  if (r === Infinity) return '+∞'
  if (r === -Infinity) return '-∞'
  const text = (r * 100).toFixed(1)
  return text.startsWith('-') ? (text === '-0.0' ? '+0.0%' : `${text}%`) : `+${text}%`
}

/** A dollar amount: cents for a dollar or more, four decimals below, two significant digits below $0.0001. */
export function formatUsd(usd: number): string {
  const sign = usd < 0 ? '-' : ''
  const abs = Math.abs(usd)
  if (abs === 0) return '$0'
  if (abs >= 1) return `${sign}$${abs.toFixed(2)}`
  if (abs >= 0.0001) return `${sign}$${abs.toFixed(4)}`
  return `${sign}$${abs.toPrecision(2)}`
}

/** A dollar difference with an explicit sign. */
export function formatUsdChange(usd: number): string {
  return usd > 0 ? `+${formatUsd(usd)}` : formatUsd(usd)
}

/** A plain number with at most `digits` decimals, trailing zeros dropped. */
export function formatNumber(value: number, digits = 2): string {
  return String(Number(value.toFixed(digits)))
}

/** A list of seeds, compressed: "1–3, 5". */
export function formatSeeds(seeds: readonly number[]): string {
  const parts: string[] = []
  let start = 0
  for (let i = 1; i <= seeds.length; i++) {
    if (i < seeds.length && seeds[i] === seeds[i - 1]! + 1) continue
    parts.push(i - 1 === start ? String(seeds[start]) : `${seeds[start]}–${seeds[i - 1]}`)
    start = i
  }
  return parts.join(', ')
}
