import { formatMoney } from './moneyfmt.js'

/**
 * A plain-text report of a summary: one line per category, amounts
 * right-aligned, and the total.
 */

const HEADER = 'category'

/** Formats a summary as a table: "category  amount" lines, then the total. */
export function formatReport(summary, { symbol = summary.symbol ?? '$' } = {}) {
  const width = HEADER.length
  const money = Object.values(summary.byCategory).map((amount) => formatMoney(amount, { symbol }))
  const moneyWidth = Math.max('amount'.length, formatMoney(summary.total, { symbol }).length, ...money.map((text) => text.length))
  const line = (label, amount) => `${label.padEnd(width)}  ${amount.padStart(moneyWidth)}`
  return [
    line(HEADER, 'amount'),
    ...Object.keys(summary.byCategory).map((category, i) => line(category, money[i])),
    line('total', formatMoney(summary.total, { symbol })),
  ].join('\n')
}
