import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { summarize } from '../src/tallyup.js'

const entry = (date, amount, category = 'food') => ({ date, description: 'x', amount, category })

describe('summaries', () => {
  it('totals amounts without floating point noise', () => {
    assert.equal(summarize([entry('2026-07-01', 0.1), entry('2026-07-02', 0.2)]).total, 0.3)
  })

  it('totals each category', () => {
    const summary = summarize([entry('2026-07-01', 5), entry('2026-07-02', 7, 'rent'), entry('2026-07-03', 2)])
    assert.deepEqual(summary.byCategory, { food: 7, rent: 7 })
  })

  it('leaves out entries before the start of a date range', () => {
    const entries = [entry('2026-06-30', 100), entry('2026-07-01', 5), entry('2026-07-02', 7)]
    assert.equal(summarize(entries, { from: '2026-07-01' }).total, 12)
  })

  it('gives the median of an odd number of amounts', () => {
    assert.equal(summarize([entry('2026-07-01', 9), entry('2026-07-02', 1), entry('2026-07-03', 4)]).median, 4)
  })
})
