/**
 * Reading the date column: ISO dates (2026-07-14) and slash dates as banks
 * print them (14/07/2026).
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})$/
const SLASHED = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/

/** Parses a date into "YYYY-MM-DD". Throws on text that is not a date. */
export function parseDate(text) {
  const value = String(text).trim()
  let match = ISO.exec(value)
  if (match) return format(Number(match[1]), Number(match[2]), Number(match[3]))
  match = SLASHED.exec(value)
  if (match) return format(Number(match[3]), Number(match[1]), Number(match[2]))
  throw new Error(`not a date: "${text}"`)
}

function format(year, month, day) {
  if (month < 1 || month > 12 || day < 1 || day > 31) throw new Error(`not a date: ${year}-${month}-${day}`)
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}
