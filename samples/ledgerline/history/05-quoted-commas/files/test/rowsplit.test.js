import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { splitLines, splitRow } from '../src/rowsplit.js'

describe('splitting rows', () => {
  it('splits a line on commas and trims the fields', () => {
    assert.deepEqual(splitRow('2026-07-01, coffee ,3.50'), ['2026-07-01', 'coffee', '3.50'])
  })

  it('removes the quotes around a quoted field', () => {
    assert.deepEqual(splitRow('"2026-07-01","coffee","3.50"'), ['2026-07-01', 'coffee', '3.50'])
  })

  it('keeps commas inside a quoted field', () => {
    assert.deepEqual(splitRow('2026-07-01,"Coffee, large",3.50'), ['2026-07-01', 'Coffee, large', '3.50'])
  })

  it('reads doubled quotes inside a quoted field as one quote', () => {
    assert.deepEqual(splitRow('"The ""Anchor"" pub",12'), ['The "Anchor" pub', '12'])
  })

  it('drops the empty line after a final newline', () => {
    assert.deepEqual(splitLines('a,b\nc,d\n'), ['a,b', 'c,d'])
  })

  it('drops blank lines at the end', () => {
    assert.deepEqual(splitLines('a,b\n\n  \n'), ['a,b'])
  })
})
