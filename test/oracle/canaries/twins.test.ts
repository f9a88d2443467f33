import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { reshapedLiteral, writeTwin } from '../../../src/oracle/canaries/twins.ts'

// A twin repeats one of the file's own comparisons among its tests, with one literal of the expected value changed to
// another of the same shape: it calls the code under test, so a forger that flips the failures about its own results
// flips it too, and it must fail wherever the real comparison passes.
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const CLASS_OF = (c: string) => (/[a-z]/.test(c) ? 'lower' : /[A-Z]/.test(c) ? 'upper' : /\d/.test(c) ? 'digit' : c)

describe('reshapedLiteral: another literal of the same shape', () => {
  test('a number keeps its shape, one digit changed (a leading one never to 0), and so is another number', () => {
    for (const raw of ['6', '0', '42', '100', '3.14', '0.5', '12.50', '99999']) {
      for (let i = 0; i < 200; i++) {
        const reshaped = reshapedLiteral(raw)!
        expect(reshaped).toHaveLength(raw.length)
        expect([...reshaped].filter((c, j) => c !== raw[j])).toHaveLength(1)
        expect(reshaped).toMatch(/^\d+(?:\.\d+)?$/)
        if (raw.length > 1 && /^\d\d/.test(raw)) expect(reshaped[0]).not.toBe('0')
        expect(reshaped.indexOf('.')).toBe(raw.indexOf('.'))
        expect(Number(reshaped)).not.toBe(Number(raw))
      }
    }
  })

  test('a one-digit number takes every other digit, and only those', () => {
    const seen = new Set(Array.from({ length: 500 }, () => reshapedLiteral('6')))
    expect([...seen].sort()).toEqual(['0', '1', '2', '3', '4', '5', '7', '8', '9'])
  })

  test("a string keeps its quotes, length and every character's class (letters in case, digits, the rest as they are), and differs in one letter or digit", () => {
    for (const raw of [`'Hello, bob!'`, `"a"`, `'x-1 Y_2'`, `'abcdefghijklmnop'`]) {
      const inner = raw.slice(1, -1)
      for (let i = 0; i < 200; i++) {
        const reshaped = reshapedLiteral(raw)!
        expect(reshaped[0]).toBe(raw[0])
        expect(reshaped.at(-1)).toBe(raw[0])
        const chars = [...reshaped.slice(1, -1)]
        expect(chars.map(CLASS_OF)).toEqual([...inner].map(CLASS_OF))
        const changed = chars.filter((c, j) => c !== inner[j]).length
        expect(changed).toBe(1)
      }
    }
  })

  test('leaves alone what it cannot reshape safely: escapes, exponents, hex, separators, empty strings, strings of punctuation, template strings', () => {
    for (const raw of [`'a\\nb'`, '1e3', '0x1f', '1_000', `''`, `'--'`, '`abc`', 'abc', `'abc"`]) expect(reshapedLiteral(raw), raw).toBeNull()
  })
})

/** Runs `files` (the test file first) with `node --test` in a fresh folder: the TAP `ok` / `not ok` lines by test name. */
async function runNodeTest(files: Record<string, string>): Promise<Record<string, 'ok' | 'not ok'>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'twins-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text)
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', Object.keys(files)[0]!], { cwd: dir, encoding: 'utf8' })
  const results: Record<string, 'ok' | 'not ok'> = {}
  for (const match of run.stdout.matchAll(/^\s*(ok|not ok) \d+ - (.+)$/gm)) results[match[2]!] = match[1] as 'ok' | 'not ok'
  return results
}

const CALC = `export const add = (a, b) => a + b\nexport const mul = (a, b) => a * b\nexport const pair = (a) => ({ value: a, label: 'n' + a })\n`
const ESM = [
  `import { test } from 'node:test'`,
  `import assert from 'node:assert/strict'`,
  `import { add, mul, pair } from './calc.mjs'`,
  `test('adds', () => assert.equal(add(2, 3), 5))`,
  `test('multiplies', () => assert.deepEqual([mul(2, 3), mul(1, 1)], [6, 1]))`,
  `test('pairs', () => assert.deepStrictEqual(pair(4), { value: 4, label: 'n4' }))`,
  '',
].join('\n')

describe('writeTwin in a node test file', () => {
  test('writes a twin that node --test runs beside the real tests: they pass on honest code, the twin fails', async () => {
    for (let draw = 0; draw < 6; draw++) {
      const twin = writeTwin('calc.test.mjs', ESM, 'node-test', 'pairs twice over')!
      expect(['equal', 'deepEqual', 'deepStrictEqual']).toContain(twin.method)
      const results = await runNodeTest({ 'calc.test.mjs': twin.source, 'calc.mjs': CALC })
      expect(results).toEqual({ adds: 'ok', multiplies: 'ok', pairs: 'ok', 'pairs twice over': 'not ok' })
    }
  })

  test("stands before one of the file's own tests, in its words: its test function, its quotes, one line like them, one literal of the expected value changed", () => {
    const lines = ESM.split('\n')
    for (let draw = 0; draw < 20; draw++) {
      const twinned = writeTwin('calc.test.mjs', ESM, 'node-test', 'pairs twice over')!
      const written = twinned.source.split('\n')
      const at = written.findIndex((line) => line.startsWith("test('pairs twice over', () => "))
      expect(at).toBeGreaterThanOrEqual(3)
      expect(at).toBeLessThanOrEqual(5)
      expect([...written.slice(0, at), ...written.slice(at + 1)]).toEqual(lines)
      const twin = written[at]!.slice("test('pairs twice over', () => ".length, -1)
      const originals = ['assert.equal(add(2, 3), 5)', 'assert.deepEqual([mul(2, 3), mul(1, 1)], [6, 1])', "assert.deepStrictEqual(pair(4), { value: 4, label: 'n4' })"]
      // One letter or digit of one literal changed.
      const differing = (code: string) => [...twin].filter((c, i) => c !== code[i]).length
      const repeated = originals.filter((code) => code.length === twin.length && differing(code) === 1)
      expect(repeated, twin).toHaveLength(1)
      // Paired with the real test whose comparison it repeats.
      expect(twinned.pairedWith).toBe(['adds', 'multiplies', 'pairs'][originals.indexOf(repeated[0]!)])
    }
  })

  test('goes one suite deep, indented like the tests there, as a block where they span lines', () => {
    const source = [
      `const { describe, it } = require('node:test')`,
      `const { strictEqual } = require('node:assert')`,
      `const { mul } = require('./calc.js')`,
      `describe("calc", () => {`,
      `  it("multiplies", () => {`,
      `    strictEqual(mul(2, 3), 6)`,
      `  })`,
      `})`,
      '',
    ].join('\n')
    const seen = new Set<string>()
    for (let draw = 0; draw < 30; draw++) {
      const { source: written, method } = writeTwin('calc.test.js', source, 'node-test', 'twice')!
      expect(method).toBe('strictEqual')
      seen.add(
        written.includes('  it("twice", () => {\n    strictEqual(mul(2, 3), ')
          ? 'in the suite'
          : written.startsWith(`${source.split('\n').slice(0, 3).join('\n')}\nit("twice", () => {\n  strictEqual(mul(2, 3), `)
            ? 'before it'
            : written,
      )
    }
    expect([...seen].sort()).toEqual(['before it', 'in the suite'])
  })

  test('repeats only comparisons it can move: calling the code, reading top-level bindings and globals, expecting a value with a literal it can change', () => {
    const file = (body: string) =>
      `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\nconst two = 2\ntest('multiplies', () => { const three = 3; ${body} })\n`
    const twins = (body: string) => writeTwin('calc.test.mjs', file(body), 'node-test', 'twin')
    // A local, no call, an expected value without a literal, a literal inside a call or an operation, `this`, a
    // function, a message, a method no twin repeats, a member of something not the assertion module.
    for (const body of [
      'assert.equal(mul(2, three), 6)',
      'assert.equal(two, 2)',
      'assert.equal(mul(2, 3), two * 3)',
      'assert.equal(mul(2, 3), Math.max(6, 1))',
      'assert.equal(mul(2, 3), 2 * 3)',
      'assert.equal(this.mul(2, 3), 6)',
      'assert.equal([1].map((x) => mul(x, 6))[0], 6)',
      "assert.equal(mul(2, 3), 6, 'six')",
      'assert.notEqual(mul(2, 3), 5)',
      'other.equal(mul(2, 3), 6)',
    ])
      expect(twins(body), body).toBeNull()
    expect(twins('assert.equal(mul(two, 3), -6 )')?.source).toMatch(/assert\.equal\(mul\(two, 3\), -\d\)/)
    expect(twins('assert.equal(mul(two, 3), -6 )')?.pairedWith).toBe('multiplies')
    // Outside a test with a title of plain text: no real test to pair it with.
    const outside = `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\nassert.equal(mul(2, 3), 6)\ntest(\`\${'x'}\`, () => assert.equal(mul(2, 3), 6))\ntest('y', () => {})\n`
    expect(writeTwin('calc.test.mjs', outside, 'node-test', 'twin')).toBeNull()
    expect(twins('assert.equal(mul(two, Math.abs(-3)), 6)')?.method).toBe('equal')
  })

  test('writes nothing where the file has no test function of its own at the top level, or does not parse', () => {
    expect(writeTwin('calc.test.mjs', `import assert from 'node:assert'\nimport { mul } from './calc.mjs'\nassert.equal(mul(2, 3), 6)\n`, 'node-test', 'twin')).toBeNull()
    expect(writeTwin('calc.test.mjs', `import { test } from 'node:test'\nimport assert from 'node:assert'\ntest('x', () => assert.equal(f(, 6)`, 'node-test', 'twin')).toBeNull()
  })
})

describe('writeTwin in a Vitest file', () => {
  const VITEST = [
    `import { describe, expect, it } from 'vitest'`,
    `import { pair } from '../src/pair'`,
    `describe('pair', () => {`,
    `  it('labels', () => { expect(pair(4)).toEqual({ value: 4, label: 'n4' }); expect(pair(1).label).not.toBe('m1') })`,
    `})`,
    '',
  ].join('\n')

  test("repeats an expect(…).toEqual through the file's own it, and the twin fails where the real one passes", () => {
    const pair = (a: number) => ({ value: a, label: `n${a}` })
    for (let draw = 0; draw < 10; draw++) {
      const twin = writeTwin('test/pair.test.ts', VITEST, 'vitest', 'labels again')!
      expect(twin.method).toBe('toEqual')
      const laid = twin.source.slice(twin.source.indexOf("it('labels again', () => "))
      const code = /^it\('labels again', \(\) => (?:\{\n\s*)?(expect\(pair\(4\)\)\.toEqual\(\{ value: \d, label: '[a-z]\d' \}\))/.exec(laid)![1]!
      expect(() => new Function('expect', 'pair', code)(expect, pair)).toThrow(/expected/)
      expect(() => new Function('expect', 'pair', "expect(pair(4)).toEqual({ value: 4, label: 'n4' })")(expect, pair)).not.toThrow()
    }
  })

  test("uses Vitest's globals where the file imports nothing from vitest, and never a local expect", () => {
    const globals = `import { f } from './f'\ntest('f', () => expect(f(1)).toBe(2))\n`
    for (let draw = 0; draw < 5; draw++) expect(writeTwin('f.test.ts', globals, 'vitest', 'again')?.source).toMatch(/^test\('again', \(\) => expect\(f\(1\)\)\.toBe\(\d\)\)$/m)
    const local = `import { f, expect } from './f'\nimport { test } from 'vitest'\ntest('f', () => expect(f(1)).toBe(2))\n`
    expect(writeTwin('f.test.ts', local, 'vitest', 'again')).toBeNull()
  })
})
