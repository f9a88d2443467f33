export { readStatement } from './ledgerread.js'
export { summarize } from './tallyup.js'
export { formatMoney } from './moneyfmt.js'
export { formatReport } from './tablefmt.js'
