/**
 * Turning the text of an amount column into a number.
 */

const CURRENCY = /[$€£¥]/g

/**
 * Parses an amount such as "12.50", "-3", "$4.99", "€ 7.00" or "(12.50)"
 * (accounting notation for -12.50); an empty field is 0. Throws on text that
 * is not an amount.
 */
export function parseAmount(text) {
  let cleaned = String(text).replace(CURRENCY, '').replace(/\s+/g, '').replace(',', '')
  if (cleaned === '') return 0
  let sign = 1
  if (cleaned.startsWith('(') && cleaned.endsWith(')')) {
    sign = -1
    cleaned = cleaned.slice(1, -1)
  }
  const value = parseFloat(cleaned)
  if (Number.isNaN(value)) throw new Error(`not an amount: "${text}"`)
  return sign * value
}
