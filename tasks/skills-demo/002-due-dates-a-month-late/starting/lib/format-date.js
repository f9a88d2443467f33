/** A UTC date as `YYYY-MM-DD`. */
function formatDay(date) {
  return date.toISOString().slice(0, 10)
}

module.exports = { formatDay }
