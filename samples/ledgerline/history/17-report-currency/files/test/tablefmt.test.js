import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { formatReport } from '../src/tablefmt.js'

describe('report tables', () => {
  it('writes one line per category and the total', () => {
    const text = formatReport({ total: 12, byCategory: { food: 5, rent: 7 } })
    assert.deepEqual(text.split('\n'), [
      'category  amount',
      'food       $5.00',
      'rent       $7.00',
      'total     $12.00',
    ])
  })

  it('writes money with the summary\'s symbol', () => {
    const text = formatReport({ total: 5, byCategory: { food: 5 }, symbol: '€' })
    assert.match(text, /€5\.00/)
  })
})
