import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseAmount } from '../src/amountparse.js'

describe('parsing amounts', () => {
  it('reads plain and negative amounts', () => {
    assert.equal(parseAmount('12.50'), 12.5)
    assert.equal(parseAmount('-3'), -3)
  })

  it('ignores currency symbols and spaces', () => {
    assert.equal(parseAmount('$4.99'), 4.99)
    assert.equal(parseAmount('€ 7.00'), 7)
  })

  it('reads thousands separators', () => {
    assert.equal(parseAmount('1,234.50'), 1234.5)
    assert.equal(parseAmount('-$2,000'), -2000)
  })

  it('reads amounts in parentheses as negative', () => {
    assert.equal(parseAmount('(12.50)'), -12.5)
    assert.equal(parseAmount('($3.00)'), -3)
  })

  it('refuses text that is not an amount', () => {
    assert.throws(() => parseAmount('n/a'), /not an amount/)
  })
})
