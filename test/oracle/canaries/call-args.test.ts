import { describe, expect, test } from 'vitest'
import { closing, splitArgs } from '../../../src/oracle/canaries/call-args.ts'

// Reading a call's arguments out of a test file's source, as the decoys (which repeat the file's plain assertions
// with a fresh expected value) and the canaries (which write ok() the way the file does) need it.
describe('closing: the index just past the parenthesis that closes the one at an index', () => {
  test('skips nested parentheses, brackets and braces', () => {
    const text = 'equal(f([1, 2], { a: (3) }), 6) + rest'
    expect(text.slice(0, closing(text, 5))).toBe('equal(f([1, 2], { a: (3) }), 6)')
  })

  test('skips brackets inside quoted and template strings', () => {
    for (const quote of ["'", '"', '`']) {
      const text = `ok(f(${quote}) ] }${quote}), 1)`
      expect(closing(text, 2)).toBe(text.length)
    }
  })

  test('is -1 for a string that never closes, a parenthesis never closed, or one closed by another bracket', () => {
    expect(closing("ok(f('open)", 2)).toBe(-1)
    expect(closing('ok(f(1)', 2)).toBe(-1)
    expect(closing('ok(f(1]', 4)).toBe(-1)
    expect(closing('ok(1}', 2)).toBe(-1)
  })

  test('counts from the index it is given', () => {
    const text = 'a(1) b(2, (3))'
    expect(closing(text, 6)).toBe(text.length)
    expect(closing(text, 1)).toBe(4)
  })
})

describe('splitArgs: the top-level comma-separated parts of an argument list', () => {
  test('splits at top-level commas only, trimming each part', () => {
    expect(splitArgs(" f(a, b) , [1, 2],{ k: 'x, y' } ")).toEqual(['f(a, b)', '[1, 2]', "{ k: 'x, y' }"])
    expect(splitArgs('{ a: 1, b: 2 }, x')).toEqual(['{ a: 1, b: 2 }', 'x'])
  })

  test('keeps commas inside strings of every quote', () => {
    expect(splitArgs(`'a, b', "c, d", \`e, f\`, g`)).toEqual(["'a, b'", '"c, d"', '`e, f`', 'g'])
  })

  test('counts one argument, none, and drops empty parts (a trailing comma)', () => {
    expect(splitArgs('mul(2, 3) === 6')).toEqual(['mul(2, 3) === 6'])
    expect(splitArgs('')).toEqual([])
    expect(splitArgs('x,')).toEqual(['x'])
    expect(splitArgs(' , x')).toEqual(['x'])
  })

  test('reads a quote that never closes as an ordinary character', () => {
    expect(splitArgs("a, 'b, c")).toEqual(['a', "'b", 'c'])
  })
})
