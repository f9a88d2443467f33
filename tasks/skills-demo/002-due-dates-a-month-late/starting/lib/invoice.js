const { parseDay, addDays } = require('./dates.js')

/** When an invoice issued on `issued` (YYYY-MM-DD) with `days` to pay is due. */
function dueDate(issued, days) {
  if (!Number.isInteger(days) || days < 0) throw new Error(`days to pay must be a whole number, got ${days}`)
  return addDays(parseDay(issued), days)
}

module.exports = { dueDate }
