/** An amount with two decimals. */
function money(amount) {
  return amount.toFixed(2)
}

/** A row for humans: its fields joined by a bar. */
function formatRow(row) {
  return row.join(' | ')
}

module.exports = { money, formatRow }
