export { readStatement } from './ledgerread.js'
export { summarize } from './tallyup.js'
export { formatMoney, DEFAULT_SYMBOL } from './moneyfmt.js'
export { formatReport } from './tablefmt.js'
