/**
 * Turning the text of an amount column into a number.
 */

const CURRENCY = /[$€£¥]/g

/** Parses an amount such as "12.50", "-3", "$4.99" or "€ 7.00". Throws on text that is not an amount. */
export function parseAmount(text) {
  const cleaned = String(text).replace(CURRENCY, '').replace(/\s+/g, '')
  const value = parseFloat(cleaned)
  if (Number.isNaN(value)) throw new Error(`not an amount: "${text}"`)
  return value
}
