import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { formatMoney } from '../src/moneyfmt.js'

describe('formatting money', () => {
  it('writes two decimals and thousands separators', () => {
    assert.equal(formatMoney(1234.5), '$1,234.50')
    assert.equal(formatMoney(3), '$3.00')
  })

  it('puts the minus sign of a negative amount before the symbol', () => {
    assert.equal(formatMoney(-5), '-$5.00')
    assert.equal(formatMoney(-1234.5, { symbol: '€' }), '-€1,234.50')
  })

  it('rounds half a cent up', () => {
    assert.equal(formatMoney(1.005), '$1.01')
    assert.equal(formatMoney(-2.675), '-$2.68')
  })

  it('uses the symbol it is given', () => {
    assert.equal(formatMoney(7.25, { symbol: '€' }), '€7.25')
  })
})
