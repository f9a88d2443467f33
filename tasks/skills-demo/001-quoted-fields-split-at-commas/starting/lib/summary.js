/** How many rows, and the sum of their amounts (the third column). */
function summarise(rows) {
  let total = 0
  for (const row of rows) total += Number(row[2])
  return { count: rows.length, total }
}

module.exports = { summarise }
