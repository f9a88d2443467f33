/** Parses a `YYYY-MM-DD` string as a date at midnight UTC. */
function parseDay(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) throw new Error(`not a YYYY-MM-DD date: ${text}`)
  const [year, month, day] = match.slice(1).map(Number)
  return new Date(Date.UTC(year, month, day))
}

/** The date a number of whole days later. */
function addDays(date, days) {
  return new Date(date.getTime() + days * 86_400_000)
}

module.exports = { parseDay, addDays }
