#!/usr/bin/env node
const { dueDate } = require('../lib/invoice.js')
const { formatDay } = require('../lib/format-date.js')

const [issued, days = '30'] = process.argv.slice(2)
console.log(`due ${formatDay(dueDate(issued, Number(days)))}`)
