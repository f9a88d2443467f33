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

  test('a number whose whole part is one digit may start with 0 (6.5 → 0.5), a longer one never', () => {
    expect(new Set(Array.from({ length: 400 }, () => reshapedLiteral('6.25')))).toContain('0.25')
    expect(new Set(Array.from({ length: 400 }, () => reshapedLiteral('65.5')))).not.toContain('05.5')
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

// Which comparisons a twin repeats, file by file: what the file binds at its top level (and how), what the
// comparison reads, how the assertion is reached, and where the twin may stand. `method` is the comparison the twin
// repeats, or null where the file gets none.
const NODE_HEAD = `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\n`
const inTest = (body: string, head = NODE_HEAD) => `${head}test('multiplies', () => {\n  ${body}\n})\n`
const cases: ReadonlyArray<readonly [string, string, string, 'node-test' | 'vitest', string | null]> = [
  ['a top-level function', 'calc.test.mjs', `${NODE_HEAD}function six() { return mul(2, 3) }\n${inTest('assert.equal(six(), 6)', '')}`, 'node-test', 'equal'],
  ['a top-level class', 'calc.test.mjs', `${NODE_HEAD}class Box { static six() { return mul(2, 3) } }\n${inTest('assert.equal(Box.six(), 6)', '')}`, 'node-test', 'equal'],
  ['an exported const', 'calc.test.mjs', `${NODE_HEAD}export const two = 2\n${inTest('assert.equal(mul(two, 3), 6)', '')}`, 'node-test', 'equal'],
  ['an exported function', 'calc.test.mjs', `${NODE_HEAD}export function three() { return 3 }\n${inTest('assert.equal(mul(2, three()), 6)', '')}`, 'node-test', 'equal'],
  [
    'a name destructured from an object, a rest, a default, after a hole',
    'calc.test.mjs',
    `${NODE_HEAD}const { a, b: [, c = 3], ...rest } = { a: 2, b: [0], d: 1 }\n${inTest('assert.equal(mul(a, c) + rest.d, 7)', '')}`,
    'node-test',
    'equal',
  ],
  ['a local of the test', 'calc.test.mjs', inTest('const two = 2; assert.equal(mul(two, 3), 6)'), 'node-test', null],
  ['a name bound in no scope', 'calc.test.mjs', inTest('assert.equal(mul(nowhere, 3), 6)'), 'node-test', null],
  [
    'a whole require of node:assert',
    'calc.test.js',
    `const { test } = require('node:test')\nconst assert = require('node:assert')\nconst { mul } = require('./calc.js')\ntest('multiplies', () => assert.strictEqual(mul(2, 3), 6))\n`,
    'node-test',
    'strictEqual',
  ],
  [
    'a comparison destructured from require, renamed',
    'calc.test.js',
    `const { test } = require('node:test')\nconst { deepEqual: same } = require('assert')\nconst { mul } = require('./calc.js')\ntest('multiplies', () => same(mul(2, 3), 6))\n`,
    'node-test',
    'deepEqual',
  ],
  [
    'a destructured require with a default',
    'calc.test.js',
    `const { test } = require('node:test')\nconst { equal = null } = require('assert')\nconst { mul } = require('./calc.js')\ntest('multiplies', () => equal(mul(2, 3), 6))\n`,
    'node-test',
    null,
  ],
  [
    'a require of a computed name',
    'calc.test.js',
    `const { test } = require('node:test')\nconst name = 'assert'\nconst assert = require(name)\nconst { mul } = require('./calc.js')\ntest('multiplies', () => assert.equal(mul(2, 3), 6))\n`,
    'node-test',
    null,
  ],
  [
    'a call of something that is not require',
    'calc.test.js',
    `const { test } = require('node:test')\nconst assert = load('node:assert')\nconst { mul } = require('./calc.js')\ntest('multiplies', () => assert.equal(mul(2, 3), 6))\n`,
    'node-test',
    null,
  ],
  [
    'a namespace import of node:assert/strict',
    'calc.test.mjs',
    `import test from 'node:test'\nimport * as strict from 'node:assert/strict'\nimport { mul } from './calc.mjs'\ntest('multiplies', () => strict.deepStrictEqual(mul(2, 3), 6))\n`,
    'node-test',
    'deepStrictEqual',
  ],
  [
    'a named comparison of another module',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport { equal } from './helpers.mjs'\nimport { mul } from './calc.mjs'\ntest('multiplies', () => equal(mul(2, 3), 6))\n`,
    'node-test',
    null,
  ],
  [
    'a named import of node:assert that is no comparison',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport { ok } from 'node:assert'\nimport { mul } from './calc.mjs'\ntest('multiplies', () => ok(mul(2, 3), 6))\n`,
    'node-test',
    null,
  ],
  ['a computed method', 'calc.test.mjs', inTest("assert['equal'](mul(2, 3), 6)"), 'node-test', null],
  ['a method of a member', 'calc.test.mjs', inTest('assert.strict.equal(mul(2, 3), 6)'), 'node-test', null],
  [
    'a member of the code read by name',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport * as calc from './calc.mjs'\ntest('multiplies', () => assert.equal(calc.mul(2, 3), 6))\n`,
    'node-test',
    'equal',
  ],
  [
    'a member read by a computed key bound nowhere',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport * as calc from './calc.mjs'\ntest('multiplies', () => assert.equal(calc[key](2, 3), 6))\n`,
    'node-test',
    null,
  ],
  ['object keys, which read nothing', 'calc.test.mjs', inTest('assert.deepEqual(Object.entries({ value: mul(2, 3) }), [["value", 6]])'), 'node-test', 'deepEqual'],
  ['a computed object key bound nowhere', 'calc.test.mjs', inTest('assert.deepEqual({ [key]: mul(2, 3) }, { value: 6 })'), 'node-test', null],
  [
    'a cast, a non-null assertion and a function type in TypeScript',
    'calc.test.ts',
    inTest('assert.equal((mul as (a: number, b: number) => number)(2, 3)!, 6)'),
    'node-test',
    'equal',
  ],
  ['an expected value spread from elsewhere', 'calc.test.mjs', inTest('assert.deepEqual({ v: mul(2, 3) }, { ...base })'), 'node-test', null],
  ['an expected value with a plus', 'calc.test.mjs', inTest('assert.equal(mul(2, 3), +6)'), 'node-test', null],
  ['an actual value over two lines', 'calc.test.mjs', inTest('assert.equal(mul(2,\n    3), 6)'), 'node-test', null],
  ['an expected value over two lines', 'calc.test.mjs', inTest('assert.deepEqual([mul(2, 3)], [\n    6])'), 'node-test', null],
  [
    'a node comparison in a Vitest file',
    'calc.test.ts',
    `import { expect, test } from 'vitest'\nimport assert from 'node:assert'\nimport { mul } from './calc'\ntest('multiplies', () => assert.equal(mul(2, 3), 6))\n`,
    'vitest',
    null,
  ],
  [
    'an expect in a node test file',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport { expect } from 'vitest'\nimport { mul } from './calc.mjs'\ntest('multiplies', () => expect(mul(2, 3)).toBe(6))\n`,
    'node-test',
    null,
  ],
  [
    'an aliased expect',
    'calc.test.ts',
    `import { expect as check, it } from 'vitest'\nimport { mul } from './calc'\nit('multiplies', () => check(mul(2, 3)).toBe(6))\n`,
    'vitest',
    'toBe',
  ],
  ['expect(…).not', 'calc.test.ts', `import { expect, it } from 'vitest'\nimport { mul } from './calc'\nit('multiplies', () => expect(mul(2, 3)).not.toBe(5))\n`, 'vitest', null],
  [
    'expect with a message',
    'calc.test.ts',
    `import { expect, it } from 'vitest'\nimport { mul } from './calc'\nit('multiplies', () => expect(mul(2, 3), 'six').toBe(6))\n`,
    'vitest',
    null,
  ],
  ['expect.soft', 'calc.test.ts', `import { expect, it } from 'vitest'\nimport { mul } from './calc'\nit('multiplies', () => expect.soft(mul(2, 3)).toBe(6))\n`, 'vitest', null],
  [
    'a matcher given two values',
    'calc.test.ts',
    `import { expect, it } from 'vitest'\nimport { mul } from './calc'\nit('multiplies', () => expect(mul(2, 3)).toEqual(6, 7))\n`,
    'vitest',
    null,
  ],
  [
    'a computed matcher',
    'calc.test.ts',
    `import { expect, it } from 'vitest'\nimport { mul } from './calc'\nit('multiplies', () => expect(mul(2, 3))['toBe'](6))\n`,
    'vitest',
    null,
  ],
  [
    'an expect of another module',
    'calc.test.ts',
    `import { it } from 'vitest'\nimport { expect } from './expect'\nimport { mul } from './calc'\nit('multiplies', () => expect(mul(2, 3)).toBe(6))\n`,
    'vitest',
    null,
  ],
  [
    "Vitest's global test where the file imports from vitest",
    'calc.test.ts',
    `import { expect } from 'vitest'\nimport { mul } from './calc'\ntest('multiplies', () => expect(mul(2, 3)).toBe(6))\n`,
    'vitest',
    null,
  ],
  [
    'only suites and no test function',
    'calc.test.mjs',
    `import { describe } from 'node:test'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\ndescribe('calc', () => { assert.equal(mul(2, 3), 6) })\n`,
    'node-test',
    null,
  ],
  ['tests that do not start their lines', 'calc.test.mjs', `${NODE_HEAD};test('multiplies', () => assert.equal(mul(2, 3), 6))\n`, 'node-test', null],
  ['a name from an array pattern’s rest', 'calc.test.mjs', `${NODE_HEAD}const [, ...others] = [1, 2]\n${inTest('assert.equal(mul(others[0], 3), 6)', '')}`, 'node-test', 'equal'],
  ['a declaration without a value beside the tests', 'calc.test.mjs', `${NODE_HEAD}let pending\n${inTest('assert.equal(mul(2, 3), 6)', '')}`, 'node-test', 'equal'],
  ['a name exported by a list', 'calc.test.mjs', `${NODE_HEAD}const two = 2\nexport { two }\n${inTest('assert.equal(mul(two, 3), 6)', '')}`, 'node-test', 'equal'],
  [
    'a require without an argument beside the real one',
    'calc.test.js',
    `const { test } = require('node:test')\nconst nothing = require()\nconst assert = require('node:assert')\nconst { mul } = require('./calc.js')\ntest('multiplies', () => assert.equal(mul(2, 3), 6))\n`,
    'node-test',
    'equal',
  ],
  [
    'a require called with new',
    'calc.test.js',
    `const { test } = require('node:test')\nconst assert = new require('node:assert')\nconst { mul } = require('./calc.js')\ntest('multiplies', () => assert.equal(mul(2, 3), 6))\n`,
    'node-test',
    null,
  ],
  [
    'a comparison destructured from require beside a rest',
    'calc.test.js',
    `const { test } = require('node:test')\nconst { equal, ...others } = require('node:assert')\nconst { mul } = require('./calc.js')\ntest('multiplies', () => equal(mul(2, 3), 6))\n`,
    'node-test',
    'equal',
  ],
  [
    'a comparison imported by a string name',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport { 'strictEqual' as same } from 'node:assert'\nimport { mul } from './calc.mjs'\ntest('multiplies', () => same(mul(2, 3), 6))\n`,
    'node-test',
    'strictEqual',
  ],
  ['a type argument of a constructor in TypeScript', 'calc.test.ts', inTest("assert.equal(new Map<string, number>([['a', mul(2, 3)]]).get('a'), 6)"), 'node-test', 'equal'],
  ['a cast of a name bound nowhere', 'calc.test.ts', inTest('assert.equal((nowhere as typeof mul)(2, 3), 6)'), 'node-test', null],
  [
    'an optional member of the code',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport * as calc from './calc.mjs'\ntest('multiplies', () => assert.equal(calc?.mul(2, 3), 6))\n`,
    'node-test',
    'equal',
  ],
  [
    'an optional call of the code',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport * as calc from './calc.mjs'\ntest('multiplies', () => assert.equal(calc.mul?.(2, 3), 6))\n`,
    'node-test',
    'equal',
  ],
  [
    'a constructor of the code, and nothing else called',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport { Product } from './calc.mjs'\ntest('multiplies', () => assert.equal(new Product(2, 3).value, 6))\n`,
    'node-test',
    'equal',
  ],
  ['an object value bound nowhere', 'calc.test.mjs', inTest('assert.deepEqual({ v: nowhere(2, 3) }, { v: 6 })'), 'node-test', null],
  ['an expected string', 'calc.test.mjs', inTest("assert.equal(String(mul(2, 3)), '6')"), 'node-test', 'equal'],
  ['an expected value whose only literal cannot be reshaped', 'calc.test.mjs', inTest('assert.equal(mul(2, 3), 6e0)'), 'node-test', null],
  ['an expected difference', 'calc.test.mjs', inTest('assert.equal(mul(2, 3), 7 - 1)'), 'node-test', null],
  [
    'an expected object spread from a top-level binding',
    'calc.test.mjs',
    `${NODE_HEAD}const base = { b: 1 }\n${inTest('assert.deepEqual({ a: mul(2, 3), b: 1 }, { ...base, a: 6 })', '')}`,
    'node-test',
    'deepEqual',
  ],
  ['a default-exported function', 'calc.test.mjs', `${NODE_HEAD}export default function six() { return mul(2, 3) }\n${inTest('assert.equal(six(), 6)', '')}`, 'node-test', 'equal'],
  ['an anonymous default export beside the tests', 'calc.test.mjs', `${NODE_HEAD}export default class {}\n${inTest('assert.equal(mul(2, 3), 6)', '')}`, 'node-test', 'equal'],
  ['an assignment statement beside the tests', 'calc.test.mjs', `${NODE_HEAD}let n\nn = 2\n${inTest('assert.equal(mul(n, 3), 6)', '')}`, 'node-test', 'equal'],
  ['a comparison inside a helper called with a string', 'calc.test.mjs', inTest("check('label', () => assert.equal(mul(2, 3), 6))"), 'node-test', 'equal'],
  ['a test call without arguments beside the tests', 'calc.test.mjs', `${NODE_HEAD}test()\n${inTest('assert.equal(mul(2, 3), 6)', '')}`, 'node-test', 'equal'],
  [
    'a suite without a function beside the tests',
    'calc.test.mjs',
    `import { describe, test } from 'node:test'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\ndescribe('pending')\n${inTest('assert.equal(mul(2, 3), 6)', '')}`,
    'node-test',
    'equal',
  ],
  [
    'the strict export of node:assert',
    'calc.test.mjs',
    `import { test } from 'node:test'\nimport { strict } from 'node:assert'\nimport { mul } from './calc.mjs'\ntest('multiplies', () => strict.equal(mul(2, 3), 6))\n`,
    'node-test',
    'equal',
  ],
  [
    'a matcher on a function that is not expect',
    'calc.test.ts',
    `import { expect, it } from 'vitest'\nimport { mul } from './calc'\nit('multiplies', () => check(mul(2, 3)).toBe(6))\n`,
    'vitest',
    null,
  ],
  [
    'another export of vitest named expect',
    'calc.test.ts',
    `import { vi as expect, it } from 'vitest'\nimport { mul } from './calc'\nit('multiplies', () => expect(mul(2, 3)).toBe(6))\n`,
    'vitest',
    null,
  ],
]

describe('writeTwin: what it repeats, by what the file binds and the comparison reads', () => {
  for (const [what, file, source, framework, method] of cases) {
    test(`${what}: ${method === null ? 'no twin' : `a twin of ${method}`}`, () => {
      const twin = writeTwin(file, source, framework, 'twin')
      expect(twin?.method ?? null).toBe(method)
      if (twin !== null) expect(twin.pairedWith).toBe('multiplies')
    })
  }
})

describe('writeTwin: which test it pairs with', () => {
  const source = `import { test } from 'node:test'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\n\ntest('small', () => assert.equal(mul(2, 3), 6))\ntest('large', () => assert.equal(mul(20, 30), 600))\n`

  test('a comparison of a preferred test (FAIL_TO_PASS) whenever there is one', () => {
    for (let draw = 0; draw < 40; draw++) expect(writeTwin('calc.test.mjs', source, 'node-test', 'twin', new Set(['large']))?.pairedWith).toBe('large')
  })

  test('any of the file’s comparisons when no preferred test has one', () => {
    const seen = new Set(Array.from({ length: 60 }, () => writeTwin('calc.test.mjs', source, 'node-test', 'twin', new Set(['other']))?.pairedWith))
    expect([...seen].sort()).toEqual(['large', 'small'])
  })
})

describe('writeTwin in an each test: one row’s values in place of the parameters', () => {
  const HEAD = `import { expect, it, test } from 'vitest'\nimport { slugify, sign } from '../src/slug'\n`
  const twins = (body: string) => Array.from({ length: 40 }, () => writeTwin('test/slug.test.ts', `${HEAD}${body}\n`, 'vitest', 'twin'))

  test("repeats the comparison with one row's literals, the expected one reshaped, paired with the title that row's test gets", () => {
    const rows = twins("it.each([['Hello', 'hello'], ['Two Words', 'two-words']])('turns %s into %s', (input, expected) => {\n  expect(slugify(input)).toBe(expected)\n})")
    const seen = new Set<string>()
    for (const twin of rows) {
      const [, input, output] = /^it\('twin', \(\) => \{\n {2}expect\(slugify\('([^']*)'\)\)\.toBe\('([^']*)'\)\n\}\)$/m.exec(twin!.source)!
      const real = input === 'Hello' ? 'hello' : 'two-words'
      expect(output).not.toBe(real)
      expect(output).toHaveLength(real.length)
      expect(twin!.pairedWith).toBe(`turns ${input} into ${real}`)
      seen.add(input!)
    }
    expect([...seen].sort()).toEqual(['Hello', 'Two Words'])
  })

  test("the preferred row's twin whenever a row's test is preferred (FAIL_TO_PASS)", () => {
    const source = `${HEAD}it.each([['Hello', 'hello'], ['Two Words', 'two-words']])('turns %s into %s', (input, expected) => expect(slugify(input)).toBe(expected))\n`
    const prefer = new Set(['turns Two Words into two-words'])
    for (let draw = 0; draw < 30; draw++) expect(writeTwin('test/slug.test.ts', source, 'vitest', 'twin', prefer)?.pairedWith).toBe('turns Two Words into two-words')
  })

  test('single values as rows, numbers printed as the title prints them, and an expected value that reads no parameter', () => {
    for (const twin of twins("test.each([-2, 3])('sign of %i', (n) => expect(sign(n, 1.5)).toBe(1))")) {
      const [, n, expected] = /^test\('twin', \(\) => expect\(sign\((-?\d), 1\.5\)\)\.toBe\((\d)\)\)$/m.exec(twin!.source)!
      expect(expected).not.toBe('1')
      expect(twin!.pairedWith).toBe(`sign of ${n}`)
    }
  })

  test('none where a row or the comparison cannot be moved out whole', () => {
    const none = [
      "it.each([[1, 2]])('doubles %s', (n, m) => expect(sign(n)).toBe(m * 2))",
      "it.each([[1, 2]])('sums %s', (a, b) => expect(sign({ a, b })).toBe(3))",
      "it.each([[1, 2]])('json %j', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([{ a: 1, b: 2 }])('named $a', ({ a, b }) => expect(sign(a)).toBe(b))",
      "it.each([[one, 2]])('bound nowhere %s', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([[1]])('short row %s', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([[1.5, 2]])('whole %i', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([[1, 2]])('local %s', (a, b) => { const c = a; expect(sign(c)).toBe(b) })",
      "it.each([])('no rows %s', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([[1, 2]], [[3, 4]])('two tables %s', (a, b) => expect(sign(a)).toBe(b))",
      'it.each([[1, 2]])(title, (a, b) => expect(sign(a)).toBe(b))',
      "it.each([[1, 2]])('no function %s', check)",
      "it['each']([[1, 2]])('computed %s', (a, b) => expect(sign(a)).toBe(b))",
      "helper.each([[1, 2]])('other %s', (a, b) => expect(sign(a)).toBe(b))",
      "it.for([[1, 2]])('for %s', ([a, b]) => expect(sign(a)).toBe(b))",
    ]
    // A plain test beside each, so that a null says the table gave no twin (not that nothing had a place).
    for (const body of none) expect(twins(`it('placeholder', () => {})\n${body}`)[0], body).toBeNull()
  })

  test('every literal a row may hold, printed in the title as Vitest prints it', () => {
    const rows = "[[null, 'none'], [true, 'yes'], [-2, 'minus'], [12, 'twelve']]"
    const titles = new Set(twins(`it.each(${rows})('shows %s as %s', (value, shown) => expect(sign(value)).toBe(shown))`).map((twin) => twin!.pairedWith))
    expect([...titles].sort()).toEqual(['shows -2 as minus', 'shows 12 as twelve', 'shows null as none', 'shows true as yes'])
    const whole = twins("it.each([[12, 'twelve']])('%i is %s', (n, name) => expect(sign(n)).toBe(name))")
    expect(whole[0]!.pairedWith).toBe('12 is twelve')
  })

  test('several parameters in one call, replaced each by its own value, and a cast of one (TypeScript)', () => {
    for (const twin of twins("it.each([['long value', 'other long', 1]])('t %s', (a, b, c) => expect(sign(a, b as string)).toBe(c))")) {
      expect(twin!.source).toMatch(/^it\('twin', \(\) => expect\(sign\('long value', 'other long' as string\)\)\.toBe\([02-9]\)\)$/m)
    }
  })

  test('none for rows of other values, placeholders past the row, or a call that only looks like a table', () => {
    const none = [
      "it.each([[+2, 1]])('plus %s', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([[-'x', 1]])('minus text %s', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([[1 - 2, 1]])('difference %s', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([[1, 2]])('%s %s %s', (a, b) => expect(sign(a)).toBe(b))",
      "it.each([[1, 2]])('destructured %s', ([a], b) => expect(sign(a)).toBe(b))",
      "it.todo([[1, 2]])('todo %s', (a, b) => expect(sign(a)).toBe(b))",
    ]
    for (const body of none) expect(twins(`it('placeholder', () => {})\n${body}`)[0], body).toBeNull()
  })
})

describe('writeTwin: where it stands, through which test function', () => {
  const draws = (source: string, name = 'twin', file = 'calc.test.mjs', framework: 'node-test' | 'vitest' = 'node-test') =>
    Array.from({ length: 30 }, () => writeTwin(file, source, framework, name)!.source)

  test('pairs a comparison after a nested test with the test around both, not the nested one', () => {
    const source = inTest("test('inner', () => {})\n  assert.equal(mul(2, 3), 6)").replace("test('multiplies'", "test('outer'")
    for (let draw = 0; draw < 10; draw++) expect(writeTwin('calc.test.mjs', source, 'node-test', 'twin')?.pairedWith).toBe('outer')
  })

  test('never inside a test, even one that holds tests', () => {
    for (const written of draws(inTest("test('inner', () => assert.equal(mul(2, 3), 6))"))) expect(written).toMatch(/^test\('twin', /m)
  })

  test('never before a top-level call that is no test or suite', () => {
    for (const written of draws(`${NODE_HEAD}configure()\ntest.todo([1])('later')\n${inTest('assert.equal(mul(2, 3), 6)', '')}`)) {
      expect(written).toMatch(/^configure\(\)\ntest\.todo\(\[1\]\)\('later'\)\ntest\('(?:twin|multiplies)'/m)
    }
  })

  test('through a test function of the file’s test module, never one of the same name from elsewhere', () => {
    const source = `import { it } from 'node:test'\nimport { test } from './helpers.mjs'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\nit('multiplies', () => assert.equal(mul(2, 3), 6))\ntest('helper', () => {})\n`
    for (const written of draws(source)) {
      expect(written).toMatch(/^it\('twin', /m)
      expect(written).not.toMatch(/^it\('twin', .*\)\ntest\('helper'/m)
    }
  })

  test('before a suite, through a test function the file calls (not one it only imports)', () => {
    const source = `import { describe, it, test } from 'node:test'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\ndescribe('calc', () => {\n  it('multiplies', () => assert.equal(mul(2, 3), 6))\n})\n`
    const written = draws(source)
    for (const one of written) expect(one).toMatch(/^ *it\('twin', /m)
    // In the suite's block form, before it.
    expect(written.some((one) => /^it\('twin', \(\) => \{\n {2}assert\.equal\(mul\(2, 3\), \d\)\n\}\)\ndescribe\(/m.test(one))).toBe(true)
  })

  test("escapes the title's quotes and backslashes in the file's quotes", () => {
    const [written] = draws(inTest('assert.equal(mul(2, 3), 6)'), "it's a \\ twin")
    expect(written).toContain(String.raw`test('it\'s a \\ twin', `)
  })

  test('before a first test at the very start of a file, on a line of its own', () => {
    const source = "test('multiplies', () => expect(mul(2, 3)).toBe(6))\nfunction mul(a, b) {\n  return a * b\n}\n"
    for (const written of draws(source, 'twin', 'calc.test.js', 'vitest')) expect(written).toMatch(/^test\('twin', \(\) => expect\(mul\(2, 3\)\)\.toBe\(\d\)\)\ntest\('multiplies'/)
  })
})

describe('writeTwin: where it stands and what it is paired with', () => {
  test('pairs a comparison of a nested test with the innermost test around it', () => {
    const source = inTest("test('inner', () => assert.equal(mul(2, 3), 6))")
    for (let draw = 0; draw < 5; draw++) expect(writeTwin('calc.test.mjs', source, 'node-test', 'twin')?.pairedWith).toBe('inner')
  })

  test('pairs with a title written as a template without expressions', () => {
    const source = `${NODE_HEAD}test(\`multiplies\`, () => assert.equal(mul(2, 3), 6))\n`
    expect(writeTwin('calc.test.mjs', source, 'node-test', 'twin')?.pairedWith).toBe('multiplies')
  })

  test('stands inside a suite written with a function expression, and never in one whose body is an expression', () => {
    const block = `${NODE_HEAD.replace('{ test }', '{ describe, test }')}describe('calc', function () {\n  test('multiplies', () => assert.equal(mul(2, 3), 6))\n})\n`
    const seen = new Set<number>()
    for (let draw = 0; draw < 40; draw++) seen.add(writeTwin('calc.test.mjs', block, 'node-test', 'twin')!.source.indexOf("  test('twin'"))
    expect([...seen].some((at) => at > 0)).toBe(true)
    const expression = `${NODE_HEAD.replace('{ test }', '{ describe, test }')}describe('calc', () => test('multiplies', () => assert.equal(mul(2, 3), 6)))\n`
    for (let draw = 0; draw < 20; draw++) expect(writeTwin('calc.test.mjs', expression, 'node-test', 'twin')!.source).toMatch(/^test\('twin', /m)
  })

  test('keeps a blank line between tests where the file has one, and none where it has none', () => {
    const spaced = `${NODE_HEAD}\ntest('adds', () => assert.equal(mul(1, 1), 1))\n\ntest('multiplies', () => assert.equal(mul(2, 3), 6))\n`
    for (let draw = 0; draw < 10; draw++) {
      const written = writeTwin('calc.test.mjs', spaced, 'node-test', 'twin')!.source
      expect(written).toMatch(/\n\ntest\('twin', \(\) => assert\.equal\(mul\(\d, \d\), \d\)\)\n\ntest\('/)
    }
    const tight = `${NODE_HEAD}test('adds', () => assert.equal(mul(1, 1), 1))\ntest('multiplies', () => assert.equal(mul(2, 3), 6))\n`
    for (let draw = 0; draw < 10; draw++) expect(writeTwin('calc.test.mjs', tight, 'node-test', 'twin')!.source).not.toMatch(/\n\n/)
  })

  test('calls the test function the file calls where it stands, of two it imports', () => {
    const source = `import { it, test } from 'node:test'\nimport assert from 'node:assert'\nimport { mul } from './calc.mjs'\nit('multiplies', () => assert.equal(mul(2, 3), 6))\n`
    for (let draw = 0; draw < 10; draw++) expect(writeTwin('calc.test.mjs', source, 'node-test', 'twin')!.source).toMatch(/^it\('twin', /m)
  })
})

test('reshapedLiteral: a digit after the first may become 0', () => {
  expect(new Set(Array.from({ length: 300 }, () => reshapedLiteral('11')))).toContain('10')
})
