import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseDate } from '../src/datefield.js'

describe('parsing dates', () => {
  it('reads ISO dates', () => {
    assert.equal(parseDate('2026-07-14'), '2026-07-14')
  })

  it('reads slash dates day first', () => {
    assert.equal(parseDate('14/07/2026'), '2026-07-14')
    assert.equal(parseDate('3/8/2026'), '2026-08-03')
  })

  it('refuses text that is not a date', () => {
    assert.throws(() => parseDate('yesterday'), /not a date/)
  })

  it('refuses a thirteenth month', () => {
    assert.throws(() => parseDate('2026-13-01'), /not a date/)
  })
})
