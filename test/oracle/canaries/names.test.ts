import { describe, expect, test } from 'vitest'
import { canaryNames, FILLER as FILLER_WORDS } from '../../../src/oracle/canaries/names.ts'

const FILLER = new Set(FILLER_WORDS)

const wordsOf = (name: string) => name.split(' ')
/** The words of a name in each position but the second, where a filler may stand. */
const outsideSecond = (names: string[]) => new Set(names.flatMap((name) => wordsOf(name).filter((_, i) => i !== 1)))

describe('canaryNames: names for canary tests that read like the real ones', () => {
  test('gives exactly the number of names asked for, and none for zero', () => {
    expect(canaryNames(['adds two numbers'], 7, 'words', new Set())).toHaveLength(7)
    expect(canaryNames(['adds two numbers'], 1, 'identifier', new Set())).toHaveLength(1)
    expect(canaryNames(['adds two numbers'], 0, 'words', new Set())).toEqual([])
  })

  test('gives distinct names, none already taken, and adds each one it gives to the taken names', () => {
    // Three words: few enough names that a draw repeats one long before 150.
    const taken = new Set(['alpha beta gamma', 'gamma gamma gamma'])
    const names = canaryNames(['alpha beta gamma'], 150, 'words', taken)
    expect(new Set(names).size).toBe(150)
    expect(names).not.toContain('alpha beta gamma')
    expect(names).not.toContain('gamma gamma gamma')
    expect(taken).toEqual(new Set(['alpha beta gamma', 'gamma gamma gamma', ...names]))
  })

  test('joins three to five words with spaces in the words style', () => {
    const names = canaryNames(['alpha beta gamma'], 300, 'words', new Set())
    for (const name of names) expect(name).toMatch(/^[a-z]+(?: [a-z]+){2,4}$/)
    expect(new Set(names.map((name) => wordsOf(name).length))).toEqual(new Set([3, 4, 5]))
  })

  test('writes a pytest function name in the identifier style: test_ and the words joined by underscores', () => {
    const names = canaryNames(['alpha beta gamma'], 300, 'identifier', new Set())
    for (const name of names) expect(name).toMatch(/^test(?:_[a-z]+){3,5}$/)
    const words = names.map((name) => name.slice('test_'.length).split('_'))
    expect(new Set(words.map((w) => w.length))).toEqual(new Set([3, 4, 5]))
    expect(new Set(words.flatMap((w) => w.filter((_, i) => i !== 1)))).toEqual(new Set(['alpha', 'beta', 'gamma']))
  })

  test("draws every word but the second from the real names' words of three letters or more, lowercased, never 'test'", () => {
    const real = ['Adds TWO numbers', 'test_sum_of_ab', 'parses_utf8-input: tests']
    const names = canaryNames(real, 400, 'words', new Set())
    expect(outsideSecond(names)).toEqual(new Set(['adds', 'two', 'numbers', 'sum', 'parses', 'utf', 'input', 'tests']))
  })

  test('puts a filler word second in about one name in three, and the real words there otherwise', () => {
    // Ten real words: enough names that turning down a repeat hardly shifts the odds.
    const real = ['alpha beta gamma delta epsilon', 'zeta eta theta iota kappa']
    const names = canaryNames(real, 600, 'words', new Set())
    const second = names.map((name) => wordsOf(name)[1]!)
    const fillers = second.filter((word) => FILLER.has(word)).length
    expect(fillers).toBeGreaterThan(120)
    expect(fillers).toBeLessThan(290)
    expect(new Set(second.filter((word) => !FILLER.has(word)))).toEqual(new Set(real.flatMap(wordsOf)))
  })

  test('uses only the real words when the real names have three, even with repeats among them', () => {
    const names = canaryNames(['alpha beta', 'beta gamma alpha'], 400, 'words', new Set())
    expect(outsideSecond(names)).toEqual(new Set(['alpha', 'beta', 'gamma']))
  })

  test('adds the filler words to the pool when the real names have fewer than three words of their own', () => {
    const names = canaryNames(['alpha beta', 'test it ok'], 400, 'words', new Set())
    const words = outsideSecond(names)
    expect(words.has('alpha') && words.has('beta')).toBe(true)
    expect([...words].every((word) => word === 'alpha' || word === 'beta' || FILLER.has(word))).toBe(true)
    expect(words.size).toBeGreaterThan(10)
  })

  test('names from filler words alone when the real names have no words', () => {
    const names = canaryNames(['1 + 2', ''], 50, 'words', new Set())
    for (const name of names) for (const word of wordsOf(name)) expect(FILLER.has(word), name).toBe(true)
  })
})
