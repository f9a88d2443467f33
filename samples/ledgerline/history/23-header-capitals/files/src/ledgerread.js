import { parseAmount } from './amountparse.js'
import { parseDate } from './datefield.js'
import { splitLines, splitRow } from './rowsplit.js'

/**
 * Reading a whole statement: the header row names the columns, every other
 * row is one entry.
 */

const REQUIRED = ['date', 'description']

/** Reads CSV text into entries `{ date, description, amount, category }`. */
export function readStatement(text) {
  const [header, ...rows] = splitLines(text)
  if (header === undefined) return []
  const columns = splitRow(header).map((name) => name.toLowerCase())
  for (const name of REQUIRED) {
    if (!columns.includes(name)) throw new Error(`the header row has no "${name}" column`)
  }
  const hasAmount = columns.includes('amount')
  if (!hasAmount && !(columns.includes('debit') && columns.includes('credit'))) {
    throw new Error('the header row has no "amount" column (nor "debit" and "credit" columns)')
  }
  const at = (fields, name) => fields[columns.indexOf(name)]
  const hasCategory = columns.includes('category')
  return rows.map((row) => {
    const fields = splitRow(row)
    return {
      date: parseDate(at(fields, 'date')),
      description: at(fields, 'description'),
      amount: hasAmount ? parseAmount(at(fields, 'amount')) : parseAmount(at(fields, 'credit')) - parseAmount(at(fields, 'debit')),
      category: (hasCategory && at(fields, 'category')) || 'uncategorised',
    }
  })
}
