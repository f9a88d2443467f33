import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import type { CanaryFramework } from '../../../src/oracle/canaries/framework.ts'
import { type Canary, layCanaries, takenNames } from '../../../src/oracle/canaries/lay.ts'

// The canaries' block as laid after a node test file: it writes its assertions the way the file writes its own, so
// that nothing but the oracle knows which tests are canaries (a message only the canaries carried, or a call form
// only the real tests used, would let code that hands the file a fake assert pass the real tests alone).
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** Lays canaries in `source` (as test/calc.test.js): the block appended after its last line, and the canaries as the oracle knows them. */
async function lay(source: string): Promise<{ block: string; canaries: Canary[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'canaries-lay-'))
  dirs.push(dir)
  await writeFile(path.join(dir, 'calc.test.js'), source)
  const canaries = await layCanaries(dir, 'node-test', ['calc.test.js'], ['multiplies', 'adds'])
  const laid = await readFile(path.join(dir, 'calc.test.js'), 'utf8')
  // A twin stands among the file's own tests, so the block starts after the file's last line, wherever that went.
  const last = source.trimEnd().split('\n').pop()!
  return { block: laid.slice(laid.lastIndexOf(last) + last.length + 1), canaries }
}

const laidAfter = async (source: string) => (await lay(source)).block

const TWIN = /^a twin of the file's /

/** The family's must-fail canaries' methods (sorted), the twins' methods, and how many must pass. */
function counted(canaries: readonly Canary[]): { mustFail: string[]; twins: string[]; mustPass: number } {
  const failing = canaries.filter((canary) => canary.kind === 'must-fail').map((canary) => canary.method)
  return {
    mustFail: failing.filter((method) => !TWIN.test(method)).sort(),
    twins: failing.filter((method) => TWIN.test(method)).map((method) => method.replace(TWIN, '')),
    mustPass: canaries.length - failing.length,
  }
}

/** Every `<binding>.ok(…)` and `<binding>(…)` call of the block's assertion binding, with its argument text. */
function okCalls(block: string): string[] {
  const binding = /(?:import\s+([\w$]+)\s+from|const\s+([\w$]+)\s*=\s*require\()\s*\(?\s*['"](?:node:)?assert/.exec(block)
  const name = binding![1] ?? binding![2]!
  return [...block.matchAll(new RegExp(String.raw`(?<![\w$.])${name}(?:\.ok)?\((.*)\)$`, 'gm'))].map((match) => match[1]!)
}

const CJS = (ok: string, call: string) =>
  `const { test } = require('node:test')\nconst assert = require('node:assert')\nconst { mul } = require('../src/calc.js')\n` +
  `test('multiplies', () => { ${ok} })\ntest('adds', () => { ${call} })\n`

describe('the canaries laid after a node test file', () => {
  test("call ok() and the assertion module itself without a message when the file's own calls have none", async () => {
    for (let draw = 0; draw < 5; draw++) {
      const block = await laidAfter(CJS('assert.ok(mul(2, 3) === 6)', 'assert(mul(1, 1) === 1)'))
      const calls = okCalls(block)
      // The file's two call forms are among the must-fail canaries every time.
      expect(block).toMatch(/\.ok\(\d+ < \d+\)$/m)
      expect(block).toMatch(/^ {2}[\w$]+\(\d+ < \d+\)$/m)
      for (const args of calls) expect(args).toMatch(/^\d+ < \d+$/)
    }
  })

  test("carry a message when every one of the file's own calls has one", async () => {
    const block = await laidAfter(CJS("assert.ok(mul(2, 3) === 6, 'two times three')", "assert(mul(1, 1) === 1, 'one')"))
    const calls = okCalls(block)
    expect(calls.length).toBeGreaterThanOrEqual(2)
    for (const args of calls) expect(args).toMatch(/^\d+ < \d+, '[a-z]+\d+'$/)
  })

  test('call ok() without a message in an ES module test file whose ok() calls have none', async () => {
    const block = await laidAfter(
      `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { mul } from '../src/calc.js'\ntest('multiplies', () => assert.ok(mul(2, 3) === 6))\n`,
    )
    expect(block).toMatch(/\.ok\(\d+ < \d+\)$/m)
  })
})

describe('how many canaries a node test file gets', () => {
  const ESM = (imports: string, body: string) => `import { test } from 'node:test'\n${imports}\nimport { mul } from '../src/calc.js'\ntest('multiplies', () => { ${body} })\n`

  test("two that must fail, the file's one assertion method always among them, and one that must pass", async () => {
    for (let draw = 0; draw < 5; draw++) {
      const { mustFail, twins, mustPass } = counted((await lay(ESM(`import assert from 'node:assert/strict'`, 'assert.ok(mul(2, 3) === 6)'))).canaries)
      expect(mustFail).toHaveLength(2)
      expect(mustFail).toContain('ok')
      expect(twins).toEqual([])
      expect(mustPass).toBe(1)
    }
  })

  test("as many where one of them is a twin of the file's own comparison: the twin and the file's method", async () => {
    for (let draw = 0; draw < 5; draw++) {
      const { mustFail, twins, mustPass } = counted((await lay(ESM(`import assert from 'node:assert/strict'`, 'assert.deepEqual(mul(2, 3), 6)'))).canaries)
      expect({ mustFail, twins, mustPass }).toEqual({ mustFail: ['deepEqual'], twins: ['deepEqual'], mustPass: 1 })
    }
  })

  test('one that must fail for each method the file calls, taken as a member, a named import (renamed or not) or a destructured require', async () => {
    const esm = ESM(
      `import assert, { deepEqual, notEqual as differs } from 'node:assert/strict'`,
      'deepEqual(mul(2, 3), 6); differs(mul(2, 3), 5); assert.strictEqual(mul(1, 1), 1)',
    )
    const fromEsm = counted((await lay(esm)).canaries)
    expect(fromEsm).toMatchObject({ mustFail: ['deepEqual', 'notEqual', 'strictEqual'], mustPass: 1 })
    // And a twin of one of its comparisons that call the code (notEqual is not a comparison a twin repeats).
    expect(fromEsm.twins).toHaveLength(1)
    expect(['deepEqual', 'strictEqual']).toContain(fromEsm.twins[0])
    const cjs =
      `const { test } = require('node:test')\nconst { equal: same, throws } = require('node:assert')\nconst { mul } = require('../src/calc.js')\n` +
      `test('multiplies', () => { same(mul(2, 3), 6); throws(() => mul()) })\n`
    expect(counted((await lay(cjs)).canaries)).toEqual({ mustFail: ['equal', 'throws'], twins: ['equal'], mustPass: 1 })
  })

  test('one that must fail for every method the file calls, however many', async () => {
    const methods = ['equal', 'strictEqual', 'deepEqual', 'deepStrictEqual', 'notEqual', 'notStrictEqual', 'notDeepStrictEqual', 'ok', 'match', 'doesNotMatch']
    const { mustFail, twins, mustPass } = counted((await lay(ESM(`import assert from 'node:assert/strict'`, methods.map((m) => `assert.${m}(1, 1)`).join('; ')))).canaries)
    // No twin: none of the comparisons calls the code.
    expect({ mustFail, twins, mustPass }).toEqual({ mustFail: [...methods].sort(), twins: [], mustPass: 1 })
  })
})

const TEST_BINDINGS = ['check', 'scenario', 'example', 'behaves', 'spec', 'testCase', 'probe', 'trial']
const ASSERT_BINDINGS = ['assertThat', 'verify', 'must', 'ensure', 'claim', 'confirm', 'expectThat', 'affirm']
/** A regular expression's alternation of `names`. */
const either = (names: readonly string[]) => `(?:${names.join('|')})`

/** Lays canaries in `file` (holding `source`) of a fresh folder: the file as laid, what was appended to `source`, and the canaries. */
async function layOne(framework: CanaryFramework, file: string, source: string, taken?: Set<string>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'canaries-lay-'))
  dirs.push(dir)
  await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
  await writeFile(path.join(dir, file), source)
  const canaries = await layCanaries(dir, framework, [file], ['multiplies', 'adds'], taken)
  const laid = await readFile(path.join(dir, file), 'utf8')
  return { dir, laid, appended: laid.startsWith(source) ? laid.slice(source.length) : null, canaries }
}

/** The block's first two lines after a node test file: its import of node:test, and of the assertion module. */
async function headOf(file: string, source: string): Promise<[string, string]> {
  const { appended } = await layOne('node-test', file, source)
  const [blank, testLine, assertLine] = appended!.split('\n')
  expect(blank).toBe('')
  return [testLine!, assertLine!]
}

/** Expects the block's head of an ES module: node:test's test or it imported under a fresh name, the assertion module under another. */
const esmHead = ([testLine, assertLine]: [string, string]) => {
  expect(testLine).toMatch(new RegExp(`^import \\{ (?:test|it) as ${either(TEST_BINDINGS)} \\} from 'node:test'$`))
  expect(assertLine).toMatch(new RegExp(`^import ${either(ASSERT_BINDINGS)} from '(?:node:)?assert(?:/strict)?'$`))
}
/** Expects the block's head of CommonJS: the same two, required. */
const cjsHead = ([testLine, assertLine]: [string, string]) => {
  expect(testLine).toMatch(new RegExp(`^const \\{ (?:test|it): ${either(TEST_BINDINGS)} \\} = require\\('node:test'\\)$`))
  expect(assertLine).toMatch(new RegExp(`^const ${either(ASSERT_BINDINGS)} = require\\('(?:node:)?assert(?:/strict)?'\\)$`))
}

const CJS_HEAD = `const { test } = require('node:test')\nconst assert = require('node:assert')\n`
const NO_TWIN_CJS = `const { test } = require('node:test')\nconst assert = require('node:assert')\ntest('multiplies', () => { assert.ok(2 * 3 === 6) })\n`
const NO_TWIN_ESM = `import { test } from 'node:test'\nimport assert from 'node:assert'\ntest('multiplies', () => { assert.ok(2 * 3 === 6) })\n`

describe('the imports of the canaries laid after a node test file', () => {
  test('import node:test and the assertion module in an ES module: by its extension (.mjs, .mts, .ts, .tsx), else by an import or export of a .js file', async () => {
    for (const file of ['calc.test.mjs', 'calc.test.mts', 'calc.test.ts', 'calc.test.tsx']) esmHead(await headOf(file, NO_TWIN_CJS))
    const body = `test('multiplies', () => { assert.ok(2 * 3 === 6) })\n`
    for (const imports of [`import assert from 'node:assert'`, `import{ test } from 'node:test'`, `  import assert from 'node:assert'`, `export const SIX = 6`]) {
      esmHead(await headOf('test/calc.test.js', `${imports}\n${body}`))
    }
  })

  test('require them in CommonJS: by its extension (.cjs, .cts), else for want of an import or export (a dynamic import, the word in a string)', async () => {
    for (const file of ['calc.test.cjs', 'calc.test.cts']) cjsHead(await headOf(file, NO_TWIN_ESM))
    cjsHead(await headOf('calc.test.js', `const label = 'import this'\nimport ('./setup.js')\n${NO_TWIN_CJS}`))
  })

  test('go by the last extension alone', async () => {
    for (const file of ['calc.mjs.test.js', 'calc.mts.test.js', 'calc.ts.test.js', 'calc.tsx.test.js']) cjsHead(await headOf(file, NO_TWIN_CJS))
    for (const file of ['calc.cjs.test.js', 'calc.cts.test.js']) esmHead(await headOf(file, NO_TWIN_ESM))
  })

  test('take the assertion module the file imports or requires, however it spells it', async () => {
    const body = `test('multiplies', () => { check.ok(2 * 3 === 6) })\n`
    const cases: Array<[string, string]> = [
      [`import check from 'assert/strict'`, 'assert/strict'],
      [`import check from'assert/strict'`, 'assert/strict'],
      [`import check from "node:assert"`, 'node:assert'],
      [`import check from 'assert'`, 'assert'],
      [`const check = require('assert/strict')`, 'assert/strict'],
      [`const check = require( 'assert/strict' )`, 'assert/strict'],
      [`const check = require("node:assert/strict")`, 'node:assert/strict'],
    ]
    for (const [line, module] of cases) {
      for (let draw = 0; draw < 4; draw++) {
        const [, assertLine] = await headOf('calc.test.js', `${line}\nconst { test } = require('node:test')\n${body}`)
        expect(assertLine).toMatch(new RegExp(`(?:from |require\\()'${module}'\\)?$`))
      }
    }
  })

  test('take node:assert/strict, node:assert or assert when the file imports none, and test or it from node:test, each now and then', async () => {
    const modules = new Set<string>()
    const functions = new Set<string>()
    const source = `const { test } = require('node:test')\ntest('multiplies', () => { if (2 * 3 !== 6) throw new Error('no') })\n`
    for (let draw = 0; draw < 60 && (modules.size < 3 || functions.size < 2); draw++) {
      const [testLine, assertLine] = await headOf('calc.test.js', source)
      cjsHead([testLine, assertLine])
      modules.add(/require\('([^']+)'\)$/.exec(assertLine)![1]!)
      functions.add(/^const \{ (\w+):/.exec(testLine)![1]!)
    }
    expect(modules).toEqual(new Set(['node:assert/strict', 'node:assert', 'assert']))
    expect(functions).toEqual(new Set(['test', 'it']))
  })

  test('bind names the file does not use, and, when it uses them all, one of them with three digits', async () => {
    const uses = (names: readonly string[]) => `// ${names.join(' ')}\n${NO_TWIN_CJS}`
    for (let draw = 0; draw < 5; draw++) {
      const [testLine, assertLine] = await headOf('calc.test.js', uses([...TEST_BINDINGS.slice(1), ...ASSERT_BINDINGS.slice(0, -1), 'checking', 'affirmed']))
      expect(testLine).toBe(`const { ${testLine.includes('{ it:') ? 'it' : 'test'}: check } = require('node:test')`)
      expect(assertLine).toBe(`const affirm = require('node:assert')`)
    }
    const [testLine, assertLine] = await headOf('calc.test.js', uses([...TEST_BINDINGS, ...ASSERT_BINDINGS]))
    expect(testLine).toMatch(new RegExp(`^const \\{ (?:test|it): ${either(TEST_BINDINGS)}\\d{3} \\}`))
    expect(assertLine).toMatch(new RegExp(`^const ${either(ASSERT_BINDINGS)}\\d{3} = require`))
  })
})

/** The block's canary tests: each `<test>("<name>", [async ]() => {\n  <code>\n})`, with the test function, name, and code. */
function testsOf(block: string): Array<{ test: string; name: string; async: boolean; code: string }> {
  return [...block.matchAll(/^([\w$]+)\(("[^"]*"), (async )?\(\) => \{\n {2}(.+)\n\}\)$/gm)].map((match) => ({
    test: match[1]!,
    name: JSON.parse(match[2]!) as string,
    async: match[3] !== undefined,
    code: match[4]!,
  }))
}

describe('the canary tests laid after a node or Vitest file', () => {
  test('one a line group, named as the canaries are, through the bound test function, async where the assertion awaits', async () => {
    const source = `import { test } from 'node:test'\nimport assert from 'node:assert'\ntest('multiplies', async () => { await assert.rejects(Promise.reject(new Error('x'))); assert.ok(true) })\n`
    for (let draw = 0; draw < 3; draw++) {
      const { appended, canaries } = await layOne('node-test', 'calc.test.mjs', source)
      const testName = /^import \{ \w+ as (\w+) \}/m.exec(appended!)![1]!
      const assertName = /^import (\w+) from/m.exec(appended!)![1]!
      const tests = testsOf(appended!)
      // Nothing but the two imports and the tests: every line is in one of them.
      expect(appended!.split('\n').length).toBe(1 + 2 + 3 * tests.length + 1)
      expect(tests.map((t) => t.name)).toEqual(canaries.map((c) => c.name))
      for (const t of tests) {
        expect(t.test).toBe(testName)
        expect(t.code.startsWith('await ')).toBe(t.async)
        expect(t.code).toContain(`${assertName}`)
      }
      const rejects = canaries.findIndex((c) => c.method === 'rejects' && c.kind === 'must-fail')
      expect(tests[rejects]!.async).toBe(true)
      expect(tests[rejects]!.code).toMatch(new RegExp(`^await ${assertName}\\.rejects\\(Promise\\.resolve\\(\\d+\\)\\)$`))
    }
  })

  test("with Vitest's globals: called by the global it or test, asserting through expect, nothing imported", async () => {
    const source = `test('multiplies', () => {\n  expect(2 * 3).toBeTruthy()\n})\n`
    const seen = new Set<string>()
    for (let draw = 0; draw < 30 && seen.size < 2; draw++) {
      const { appended, canaries } = await layOne('vitest', 'calc.test.js', source)
      const tests = testsOf(appended!)
      expect(appended).toBe(`\n${tests.map((t) => `${t.test}(${JSON.stringify(t.name)}, ${t.async ? 'async ' : ''}() => {\n  ${t.code}\n})`).join('\n')}\n`)
      expect(tests.map((t) => t.name)).toEqual(canaries.map((c) => c.name))
      expect(new Set(tests.map((t) => t.test)).size).toBe(1)
      seen.add(tests[0]!.test)
      for (const t of tests) expect(t.code).toMatch(/^(?:await )?expect\(/)
      expect(canaries.filter((c) => c.kind === 'must-fail').map((c) => c.method)).toContain('toBeTruthy')
    }
    expect(seen).toEqual(new Set(['it', 'test']))
  })

  test('with Vitest imported: expect and it or test imported under names of their own, the file never told by them', async () => {
    const seen = new Set<string>()
    for (const from of [`from 'vitest'`, `from"vitest"`, `from  'vitest'`]) {
      for (let draw = 0; draw < 20 && (seen.size < 2 || draw < 2); draw++) {
        const source = `import { expect, test } ${from}\ntest('multiplies', () => {\n  expect(2 * 3).toBeTruthy()\n})\n`
        const { appended, canaries } = await layOne('vitest', 'calc.test.ts', source)
        const [blank, head] = appended!.split('\n')
        expect(blank).toBe('')
        const [, assertName, imported, testName] = new RegExp(
          `^import \\{ expect as (${either(ASSERT_BINDINGS)}), (it|test) as (${either(TEST_BINDINGS)}) \\} from 'vitest'$`,
        ).exec(head!)!
        seen.add(imported!)
        const tests = testsOf(appended!)
        expect(tests.map((t) => t.name)).toEqual(canaries.map((c) => c.name))
        for (const t of tests) {
          expect(t.test).toBe(testName)
          expect(t.code).toMatch(new RegExp(`^(?:await )?${assertName}\\(`))
        }
      }
    }
    expect(seen).toEqual(new Set(['it', 'test']))
  })

  test('named in words, the twin too, not as pytest functions', async () => {
    const source = `const { test } = require('node:test')\nconst assert = require('node:assert')\nconst { mul } = require('./calc.js')\ntest('multiplies', () => { assert.equal(mul(2, 3), 6) })\n`
    const { canaries } = await layOne('node-test', 'calc.test.js', source)
    expect(canaries.some((c) => c.pairedWith === 'multiplies')).toBe(true)
    for (const canary of canaries) expect(canary.name).toMatch(/^[a-z]+(?: [a-z]+){2,4}$/)
  })

  test('in a random order: the one that must pass is not always last', async () => {
    const positions = new Set<number>()
    for (let draw = 0; draw < 30 && positions.size < 3; draw++) {
      const { canaries } = await layOne('node-test', 'calc.test.js', NO_TWIN_CJS)
      positions.add(canaries.findIndex((c) => c.kind === 'must-pass'))
    }
    expect(positions).toEqual(new Set([0, 1, 2]))
  })

  test("after one blank line, the file's last line ended if it was not", async () => {
    const ended = await layOne('node-test', 'calc.test.js', NO_TWIN_CJS)
    expect(ended.appended).toMatch(/^\n[^\n]/)
    const unended = await layOne('node-test', 'calc.test.js', NO_TWIN_CJS.trimEnd())
    expect(unended.appended).toMatch(/^\n\n[^\n]/)
    const pytest = await layOne('pytest', 'test_calc.py', 'def test_mul():\n    assert 2 * 3 == 6')
    expect(pytest.appended).toMatch(/^\n\n\nimport pytest\n/)
  })
})

describe('which methods the must-fail canaries cover', () => {
  /** The methods of the must-fail canaries (sorted), twins aside. */
  const mustFail = async (source: string) => counted((await layOne('node-test', 'calc.test.js', source)).canaries).mustFail

  test('a method of another object named assert is not a call of the assertion module', async () => {
    const source = `${CJS_HEAD}test('multiplies', () => { checks.assert(1); assert.ok(1 === 1, 'one'); assert.match('ab', /a/) })\n`
    for (let draw = 0; draw < 3; draw++) expect(await mustFail(source)).toEqual(['match', 'ok'])
  })

  test('a name imported under another, however it is spaced', async () => {
    const source = `import { test } from 'node:test'\nimport { ok  as truthy, match } from 'node:assert'\ntest('multiplies', () => { truthy(1 === 1); match('ab', /a/) })\n`
    for (let draw = 0; draw < 3; draw++) expect(await mustFail(source)).toEqual(['match', 'ok'])
  })

  test('the assertion module called itself, bound to a name with a $', async () => {
    const source = `const { test } = require('node:test')\nconst $assert = require('node:assert')\ntest('multiplies', () => { $assert(1 === 1, 'one'); $assert.match('ab', /a/) })\n`
    for (let draw = 0; draw < 3; draw++) expect(await mustFail(source)).toEqual(['assert()', 'match'])
  })
})

describe('when the canaries call ok() and the assertion module without a message', () => {
  /** The arguments of the block's ok() and module calls, for a CommonJS file whose tests are `body`. */
  const okArgs = async (body: string) => okCalls((await layOne('node-test', 'calc.test.js', `${CJS_HEAD}test('multiplies', () => { ${body} })\n`)).appended!)
  const PLAIN = /^\d+ < \d+$/
  const MESSAGED = /^\d+ < \d+, '[a-z]+\d+'$/

  test('when one of the calls has none, though others have one', async () => {
    for (const body of [`assert.ok(1 === 1, 'one'); assert.ok(2 === 2)`, `assert.ok(1 === 1, 'one'); assert(2 === 2)`, `assert(1 === 1, 'one'); assert(2 === 2)`]) {
      const args = await okArgs(body)
      expect(args.length).toBeGreaterThanOrEqual(1)
      for (const arg of args) expect(arg).toMatch(PLAIN)
    }
  })

  test('not for a call it cannot read to its end, a call with no argument at all, or a method whose name only ends in ok', async () => {
    for (const body of [`assert.ok(1 === 1, 'one') })\n// assert.ok(it's wrong`, `assert.ok(1 === 1, 'one'); assert.ok()`, `assert.ok(1 === 1, 'one'); clock.took(2)`]) {
      const args = await okArgs(body)
      expect(args.length).toBeGreaterThanOrEqual(1)
      for (const arg of args) expect(arg).toMatch(MESSAGED)
    }
  })
})

describe('the canaries laid after a pytest file', () => {
  const SOURCE = `from calc import mul\n\n\ndef test_multiplies():\n    assert mul(2, 3) == 6\n`

  test('a twin before the real test, then import pytest and one test function each, two blank lines apart, named test_… from the real names', async () => {
    const taken = new Set(['test_multiplies'])
    const { laid, canaries } = await layOne('pytest', 'test_calc.py', SOURCE, taken)
    const [twin] = canaries.filter((canary) => canary.pairedWith !== undefined)
    expect(laid.startsWith(`from calc import mul\n\n\ndef ${twin!.name}():\n    assert mul(2, 3) == `)).toBe(true)
    const last = '    assert mul(2, 3) == 6\n'
    const appended = laid.slice(laid.lastIndexOf(last) + last.length)
    expect(appended).toMatch(/^\n\nimport pytest\n(?:\n\ndef test_[a-z_]+\(\):\n {4}[^\n]+\n(?: {8}[^\n]+\n)?)+$/)
    expect([...laid.matchAll(/^def (\w+)\(\):$/gm)].map((match) => match[1]).filter((name) => name !== 'test_multiplies')).toEqual(canaries.map((c) => c.name))
    // The twin of the file's == takes the place of one of the family's two that must fail; one must pass.
    expect(counted(canaries)).toMatchObject({ twins: ['=='], mustPass: 1 })
    expect(counted(canaries).mustFail).toHaveLength(1)
    expect(twin!.pairedWith).toBe('test_multiplies')
    for (const canary of canaries) expect(canary.name).toMatch(/^test_[a-z]+(?:_[a-z]+){2,4}$/)
    expect(taken).toEqual(new Set(['test_multiplies', ...canaries.map((c) => c.name)]))
  })

  test("the twin repeats a FAIL_TO_PASS test's comparison when the file has one: a function's, or a method's by its id", async () => {
    const layouts: ReadonlyArray<readonly [string, string, string]> = [
      ['from calc import mul\n\n\ndef test_a():\n    assert mul(2, 3) == 6\n\n\ndef test_b():\n    assert mul(1, 4) == 4\n', 'test_calc.py::test_b', 'test_b'],
      [
        'from calc import mul\n\n\nclass TestCalc:\n    def test_a(self):\n        assert mul(2, 3) == 6\n\n    def test_b(self):\n        assert mul(1, 4) == 4\n',
        'test_calc.py::TestCalc::test_b',
        'TestCalc::test_b',
      ],
    ]
    for (const [source, failToPass, pairedWith] of layouts) {
      for (let draw = 0; draw < 15; draw++) {
        const dir = await mkdtemp(path.join(os.tmpdir(), 'canaries-lay-'))
        dirs.push(dir)
        await writeFile(path.join(dir, 'test_calc.py'), source)
        const canaries = await layCanaries(dir, 'pytest', ['test_calc.py'], ['test_a', 'test_b'], undefined, [failToPass])
        expect(canaries.find((canary) => canary.pairedWith !== undefined)?.pairedWith, source).toBe(pairedWith)
      }
    }
  })

  test('pytest runs them: the real test passes, each canary fails or passes as its kind says', async () => {
    const { dir, canaries } = await layOne('pytest', 'test_calc.py', SOURCE)
    await writeFile(path.join(dir, 'calc.py'), 'def mul(a, b):\n    return a * b\n')
    const run = spawnSync('python3', ['-m', 'pytest', '-q', '-rA', '-p', 'no:cacheprovider', 'test_calc.py'], { cwd: dir, encoding: 'utf8' })
    const results = new Map([...run.stdout.matchAll(/^(PASSED|FAILED) \S+::(\w+)/gm)].map((match) => [match[2]!, match[1] === 'PASSED']))
    expect(results).toEqual(new Map([['test_multiplies', true], ...canaries.map((c): [string, boolean] => [c.name, c.kind === 'must-pass'])]))
  })
})

describe('the canaries run for real by node --test', () => {
  test('in CommonJS and in an ES module, with a twin or without: the real tests pass, each canary fails or passes as its kind says', async () => {
    const calc = `exports.mul = (a, b) => a * b\n`
    const sources: Array<[string, string]> = [
      ['calc.test.js', `${CJS_HEAD}const { mul } = require('./calc.js')\ntest('multiplies', () => { assert.equal(mul(2, 3), 6); assert.ok(mul(1, 1) === 1) })\n`],
      [
        'calc.test.mjs',
        `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\ntest('adds', async () => { assert(1 + 1 === 2); await assert.rejects(Promise.reject(new Error('x'))) })`,
      ],
    ]
    for (const [file, source] of sources) {
      const { dir, canaries } = await layOne('node-test', file, source)
      await writeFile(path.join(dir, 'calc.js'), calc)
      const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: dir, encoding: 'utf8' })
      const results = new Map([...run.stdout.matchAll(/^(not )?ok \d+ - (.+)$/gm)].map((match) => [match[2]!, match[1] === undefined]))
      const real = file.endsWith('.mjs') ? 'adds' : 'multiplies'
      expect(results).toEqual(new Map([[real, true], ...canaries.map((c): [string, boolean] => [c.name, c.kind === 'must-pass'])]))
    }
  })
})

describe('takenNames: the names canaries must not take', () => {
  test("the last part of each real test's id, after its file and suites", () => {
    expect(takenNames(['test/calc.test.js::calc > multiplies', 'test_calc.py::test_mul', 'adds', 'a::b::c > d > e'])).toEqual(new Set(['multiplies', 'test_mul', 'adds', 'e']))
  })

  test('layCanaries leaves taken only the names it laid, besides those given (not an unused twin name)', async () => {
    const taken = new Set(['multiplies'])
    const { canaries } = await layOne('node-test', 'calc.test.js', NO_TWIN_CJS, taken)
    expect(canaries).toHaveLength(3)
    expect(taken).toEqual(new Set(['multiplies', ...canaries.map((c) => c.name)]))
  })
})
