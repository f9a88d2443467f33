#!/usr/bin/env node
const { readRows } = require('../lib/csv.js')
const { summarise } = require('../lib/summary.js')
const { money } = require('../lib/format.js')

const rows = readRows(process.argv[2])
for (const row of rows) console.log(`${row.length} columns: ${row.join(' | ')}`)
const { count, total } = summarise(rows)
console.log(`${count} rows, total ${money(total)}`)
