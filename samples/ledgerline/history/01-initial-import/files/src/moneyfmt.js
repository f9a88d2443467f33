/**
 * Writing amounts of money for people: a currency symbol, two decimals and
 * thousands separators.
 */

/** Formats an amount as money, e.g. 1234.5 → "$1,234.50". */
export function formatMoney(amount, { symbol = '$' } = {}) {
  const [whole, cents] = amount.toFixed(2).split('.')
  return `${symbol}${group(whole)}.${cents}`
}

function group(digits) {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}
