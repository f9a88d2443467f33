import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readStatement } from '../src/ledgerread.js'

describe('reading statements', () => {
  it('reads one entry per row, by the header names', () => {
    const text = 'date,description,amount,category\n2026-07-01,coffee,-3.50,food\n2026-07-02,salary,2000,income\n'
    assert.deepEqual(readStatement(text), [
      { date: '2026-07-01', description: 'coffee', amount: -3.5, category: 'food' },
      { date: '2026-07-02', description: 'salary', amount: 2000, category: 'income' },
    ])
  })

  it('puts entries without a category column under "uncategorised"', () => {
    const [entry] = readStatement('amount,date,description\n9.99,2026-07-03,book\n')
    assert.deepEqual(entry, { date: '2026-07-03', description: 'book', amount: 9.99, category: 'uncategorised' })
  })

  it('reads separate debit and credit columns', () => {
    const text = 'date,description,debit,credit\n2026-07-01,coffee,3.50,\n2026-07-02,salary,,2000\n'
    assert.deepEqual(readStatement(text).map((entry) => entry.amount), [-3.5, 2000])
  })

  it('reads column names in any case', () => {
    const entries = readStatement('Date,Description,AMOUNT,Category\n2026-07-01,coffee,-3.50,food\n')
    assert.deepEqual(entries, [{ date: '2026-07-01', description: 'coffee', amount: -3.5, category: 'food' }])
  })

  it('refuses a header without an amount column', () => {
    assert.throws(() => readStatement('date,description\n2026-07-01,coffee\n'), /no "amount" column/)
  })
})
