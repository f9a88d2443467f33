const fs = require('node:fs')

/** Splits one CSV line into its fields. */
function splitLine(line) {
  return line.split(',')
}

/** The data rows of a CSV file (the header row left out), each an array of fields. */
function readRows(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '')
  return lines.slice(1).map(splitLine)
}

module.exports = { splitLine, readRows }
