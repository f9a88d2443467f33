const fs = require('node:fs')
const rows = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n')
let total = 0
for (const row of rows) total += Number(row.split(',')[1])
console.log(total)
