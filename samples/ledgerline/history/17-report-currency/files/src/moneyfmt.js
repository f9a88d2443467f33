/**
 * Writing amounts of money for people: a currency symbol, two decimals and
 * thousands separators.
 */

/** The symbol used when none is given. */
export const DEFAULT_SYMBOL = '$'

/** Formats an amount as money, e.g. 1234.5 → "$1,234.50". */
export function formatMoney(amount, { symbol = DEFAULT_SYMBOL } = {}) {
  const [whole, cents] = roundCents(Math.abs(amount)).toFixed(2).split('.')
  const sign = amount < 0 && Number(`${whole}.${cents}`) !== 0 ? '-' : ''
  return `${sign}${symbol}${group(whole)}.${cents}`
}

/** Rounds to whole cents, half away from zero, on the decimal value (1.005 → 1.01). */
function roundCents(value) {
  return Number(`${Math.round(Number(`${value}e2`))}e-2`)
}

function group(digits) {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}
