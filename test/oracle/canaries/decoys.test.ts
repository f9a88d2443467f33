import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { type Decoy, layDecoys, otherLiteral, withFixPaths } from '../../../src/oracle/canaries/decoys.ts'
import type { CanaryFramework } from '../../../src/oracle/canaries/framework.ts'

// A decoy stands at the path a special-caser knows: the file's imports and each of its plain assertions once more,
// the expected value replaced by a fresh one, while the real tests move to a sibling the runner still picks up.
const dirs: string[] = []

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const REAL_NAMES = ['multiplies two numbers', 'greets by name']
const FRESH_WORDS = ['ember', 'quartz', 'saffron', 'tundra', 'willow', 'zephyr']
const MOVED_WORDS = ['cases', 'behaviour', 'more', 'edge', 'extra', 'basics', 'spec', 'unit']
const DECOY_TEST_NAMES = ['check', 'scenario', 'example', 'behaves']

/** A folder holding `files` (paths relative to it), as the oracle's copy of a repository. */
async function copyWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'canaries-decoys-'))
  dirs.push(dir)
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await writeFile(path.join(dir, file), text)
  }
  return dir
}

/** Lays decoys for `testFiles` (all of `files` unless named) and gives them, the folder, and a reader of its files. */
async function lay(framework: CanaryFramework, files: Record<string, string>, testFiles = Object.keys(files), taken = new Set<string>()) {
  const dir = await copyWith(files)
  const decoys = await layDecoys(dir, framework, testFiles, REAL_NAMES, taken)
  return { dir, decoys, read: (file: string) => readFile(path.join(dir, file), 'utf8') }
}

/** The text with each fresh value put back to a placeholder: a number of four or five digits `<n>`, a fresh word (in its quotes) `<w>`. */
function normalised(text: string): string {
  return text.replace(/\b\d{4,5}\b/g, '<n>').replace(new RegExp(`(['"])(?:${FRESH_WORDS.join('|')})-\\d{3}\\1`, 'g'), '$1<w>$1')
}

/** The one decoy laid, with the name of the test function its file calls (taken from the line that binds it). */
function only(decoys: Decoy[]): Decoy {
  expect(decoys).toHaveLength(1)
  return decoys[0]!
}

/** The decoy's JavaScript test calls, one per canary, as `decoySource` writes them. */
const calls = (testName: string, decoy: Decoy, codes: string[]) =>
  codes.map((code, i) => `${testName}(${JSON.stringify(decoy.canaries[i]!.name)}, () => {\n  ${code}\n})`).join('\n')

const CALC_CJS =
  `const { test } = require('node:test')\nconst assert = require('node:assert')\nconst { mul, greet } = require('../src/calc.js')\nconst SIX = 6\n\n` +
  `test('multiplies two numbers', () => {\n  assert.equal(mul(2, 3), 6)\n  assert.strictEqual(greet('bob'), 'Hello, bob')\n  assert.ok(mul(1, 1) === 1)\n})\n`

describe('layDecoys: which test files get a decoy', () => {
  test('a file with plain assertions: the real tests move to a sibling, the decoy takes the path, and the decoy is what it returns', async () => {
    const { decoys, read } = await lay('node-test', { 'test/calc.test.js': CALC_CJS })
    const decoy = only(decoys)
    expect(decoy.file).toBe('test/calc.test.js')
    expect(decoy.movedTo).toMatch(new RegExp(`^test/calc-(?:${MOVED_WORDS.join('|')})\\.test\\.js$`))
    expect(decoy.imported).toBe(true)
    // The real file loads the decoy first (one process for both), the rest of it as it was.
    expect(await read(decoy.movedTo)).toBe(`require('./calc.test.js')\n${CALC_CJS}`)
    expect(await read('test/calc.test.js')).not.toBe(CALC_CJS)
  })

  test('leaves a file alone when no assertion of it compares with a literal in one line (ok(), a variable, an expression, a message, a bare call, a multi-line actual, a call another bracket closes)', async () => {
    const source =
      `const { test } = require('node:test')\nconst assert = require('node:assert')\nconst { equal } = require('node:assert')\nconst { mul } = require('../src/calc.js')\n` +
      `test('multiplies', () => {\n  assert.ok(mul(2, 3) === 6)\n  assert.equal(mul(2, 3), SIX)\n  assert.equal(mul(2, 3), 3 * 2)\n  assert.equal(mul(2, 3), 6, 'six')\n` +
      `  equal(mul(2, 3), 6)\n  assert.notEqual(mul(2, 3), 5)\n  assert.equal(mul(\n    2, 3), 6)\n  assert.deepEqual(mul(2, 3), [6])\n  assert.equalish(mul(2, 3), 6)\n})\n// assert.equal(mul(2, 3), 6]\n`
    const { decoys, read } = await lay('node-test', { 'test/calc.test.js': source })
    expect(decoys).toEqual([])
    expect(await read('test/calc.test.js')).toBe(source)
  })

  test('leaves a file that mentions snapshots where it is (its snapshot files would be missed), in any case of the word', async () => {
    for (const mention of ['toMatchSnapshot()', 'toMatchInlineSnapshot()', '// see the Snapshots folder', 'SNAPSHOT']) {
      const source = `import { expect, test } from 'vitest'\nimport { mul } from '../src/calc.ts'\ntest('multiplies', () => {\n  expect(mul(2, 3)).toBe(6)\n  ${mention}\n})\n`
      const { decoys, read } = await lay('vitest', { 'test/calc.test.ts': source })
      expect(decoys).toEqual([])
      expect(await read('test/calc.test.ts')).toBe(source)
    }
  })

  test('only the files with plain assertions, in the order given, each with its own canaries', async () => {
    const plain = `const { test } = require('node:test')\nconst assert = require('node:assert')\ntest('adds', () => assert.ok(true))\n`
    const { decoys, read } = await lay('node-test', { 'test/a.test.js': CALC_CJS, 'test/b.test.js': plain, 'test/c.test.js': CALC_CJS })
    expect(decoys.map((decoy) => decoy.file)).toEqual(['test/a.test.js', 'test/c.test.js'])
    expect(await read('test/b.test.js')).toBe(plain)
    expect(decoys.map((decoy) => decoy.canaries.map((canary) => canary.file))).toEqual([
      ['test/a.test.js', 'test/a.test.js'],
      ['test/c.test.js', 'test/c.test.js'],
    ])
  })
})

describe('the decoy a node test file gets', () => {
  test('in CommonJS: the imports, node:test required under a name of its own, and each plain assertion with a fresh expected value', async () => {
    const { decoys, read } = await lay('node-test', { 'test/calc.test.js': CALC_CJS })
    const decoy = only(decoys)
    const text = await read('test/calc.test.js')
    const testName = /^const \{ test: (\w+) \} = require\('node:test'\)$/m.exec(text)![1]!
    expect(DECOY_TEST_NAMES).toContain(testName)
    expect(normalised(text)).toBe(
      `const { test } = require('node:test')\nconst assert = require('node:assert')\nconst { mul, greet } = require('../src/calc.js')\n` +
        `const { test: ${testName} } = require('node:test')\n${calls(testName, decoy, ['assert.equal(mul(2, 3), <n>)', "assert.strictEqual(greet('bob'), '<w>')"])}\n`,
    )
  })

  test('as an ES module (by its last extension, or by an import or export in a .js file): node:test imported, and the real file importing the decoy', async () => {
    const body = `test('multiplies', () => {\n  assert.deepStrictEqual(mul(2, 3), "six")\n})\n`
    const cases: Array<[string, string]> = [
      ['test/calc.test.mjs', `const { test } = require('node:test')\nconst assert = require('node:assert')\n${body}`],
      ['test/calc.test.mts', `const { test } = require('node:test')\nconst assert = require('node:assert')\n${body}`],
      ['test/calc.test.ts', `const { test } = require('node:test')\nconst assert = require('node:assert')\n${body}`],
      ['test/calc.test.tsx', `const { test } = require('node:test')\nconst assert = require('node:assert')\n${body}`],
      ['test/calc.test.js', `import { test } from 'node:test'\nimport assert from 'node:assert'\n${body}`],
      ['test/calc.test.js', `  import{ test } from 'node:test'\n${body}`],
      ['test/calc.test.js', `const { test } = require('node:test')\nconst assert = require('node:assert')\nexport const SIX = 6\n${body}`],
      // By the last extension alone.
      ['test/calc.cjs.test.js', `import { test } from 'node:test'\nimport assert from 'node:assert'\n${body}`],
    ]
    for (const [file, source] of cases) {
      const { decoys, read } = await lay('node-test', { [file]: source })
      const decoy = only(decoys)
      const text = await read(file)
      expect(text).toMatch(new RegExp(`^import \\{ test as (?:${DECOY_TEST_NAMES.join('|')}) \\} from 'node:test'$`, 'm'))
      expect(text).toMatch(/^ {2}assert\.deepStrictEqual\(mul\(2, 3\), "(?:ember|quartz|saffron|tundra|willow|zephyr)-\d{3}"\)$/m)
      expect(await read(decoy.movedTo)).toBe(`import './${path.posix.basename(file)}'\n${source}`)
    }
  })

  test('as CommonJS by its last extension (.cjs, .cts) or for want of an import or export (a dynamic import, the word in a string)', async () => {
    const body = `test('multiplies', () => {\n  assert.equal(mul(2, 3), 6)\n})\n`
    const esm = `import { test } from 'node:test'\nimport assert from 'node:assert'\n${body}`
    const cases: Array<[string, string]> = [
      ['test/calc.test.cjs', esm],
      ['test/calc.test.cts', esm],
      ['test/calc.test.js', `const { test } = require('node:test')\nconst assert = require('node:assert')\nimport ('./setup.js')\nconst label = 'import this'\n${body}`],
      // By the last extension alone.
      ['test/calc.mjs.test.js', `const { test } = require('node:test')\nconst assert = require('node:assert')\n${body}`],
      ['test/calc.ts.test.js', `const { test } = require('node:test')\nconst assert = require('node:assert')\n${body}`],
    ]
    for (const [file, source] of cases) {
      const { decoys, read } = await lay('node-test', { [file]: source })
      const decoy = only(decoys)
      expect(await read(file)).toMatch(/^const \{ test: \w+ \} = require\('node:test'\)$/m)
      expect(await read(decoy.movedTo)).toBe(`require('./${path.posix.basename(file)}')\n${source}`)
    }
  })

  test('copies every form of import and require (multi-line, bare, with semicolons, let and var) and nothing else', async () => {
    const source =
      `import {\n  test,\n  describe,\n} from 'node:test';\nimport './setup.js'\nimport * as assert from "node:assert" \nlet { mul } = require('../src/calc.js');\nvar greet = require('../src/greet.js').greet\n` +
      `const SIX = 6\nimport.meta.url\n\ntest('multiplies', () => {\n  assert.equal(mul(2, 3), 6)\n})\n`
    const { decoys, read } = await lay('node-test', { 'test/calc.test.js': source })
    const decoy = only(decoys)
    const text = await read('test/calc.test.js')
    const testName = /^import \{ test as (\w+) \} from 'node:test'$/m.exec(text)![1]!
    expect(normalised(text)).toBe(
      `import {\n  test,\n  describe,\n} from 'node:test';\nimport './setup.js'\nimport * as assert from "node:assert" \nlet { mul } = require('../src/calc.js');\nvar greet = require('../src/greet.js').greet\n` +
        `import { test as ${testName} } from 'node:test'\n${calls(testName, decoy, ['assert.equal(mul(2, 3), <n>)'])}\n`,
    )
  })

  test("repeats equal, strictEqual, deepEqual and deepStrictEqual on any binding, each expected number, string or negative or decimal literal, but not Vitest's expect", async () => {
    const source =
      `const { test } = require('node:test')\nconst check = require('node:assert/strict')\n` +
      `test('multiplies', () => {\n  check.equal(mul(2, 3), -6)\n  check.strictEqual(mul(1, 2), 2.5)\n  check.deepEqual( greet('x'),  'x' )\n  strict.deepStrictEqual(greet("y"), "y")\n  expect(mul(2, 3)).toBe(6)\n})\n`
    const { decoys, read } = await lay('node-test', { 'test/calc.test.js': source })
    const decoy = only(decoys)
    const text = await read('test/calc.test.js')
    const testName = /^const \{ test: (\w+) \}/m.exec(text)![1]!
    expect(normalised(text)).toBe(
      `const { test } = require('node:test')\nconst check = require('node:assert/strict')\nconst { test: ${testName} } = require('node:test')\n` +
        `${calls(testName, decoy, ['check.equal(mul(2, 3), <n>)', 'check.strictEqual(mul(1, 2), <n>)', `check.deepEqual(greet('x'), '<w>')`, 'strict.deepStrictEqual(greet("y"), "<w>")'])}\n`,
    )
  })

  test('gives each decoy a fresh value: a number of four or five digits other than the real one, or one of its words with three digits in the same quotes', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `  assert.equal(f(${i}), ${i % 2 === 0 ? `'w${i}'` : '7'})`)
    const { decoys, read } = await lay('node-test', { 'test/f.test.js': `const assert = require('node:assert')\ntest('f', () => {\n${lines.join('\n')}\n})\n` })
    expect(only(decoys).canaries).toHaveLength(100)
    const text = await read('test/f.test.js')
    const numbers = [...text.matchAll(/assert\.equal\(f\(\d+\), (\d+)\)/g)].map((match) => Number(match[1]))
    const words = [...text.matchAll(/assert\.equal\(f\(\d+\), '([^']*)'\)/g)].map((match) => match[1]!)
    expect(numbers).toHaveLength(50)
    expect(words).toHaveLength(50)
    for (const n of numbers) expect(n >= 1000 && n < 99_999).toBe(true)
    for (const word of words) expect(word).toMatch(/^[a-z]+-\d{3}$/)
    expect(new Set(words.map((word) => word.split('-')[0]))).toEqual(new Set(FRESH_WORDS))
  })

  test('draws a number again while it is the real one, from four and five digits', () => {
    const draws = [4321, 4321, 1234]
    const asked: Array<[number, number]> = []
    const value = otherLiteral('4321', (min, max) => {
      asked.push([min, max])
      return draws.shift()!
    })
    expect(value).toBe('1234')
    expect(asked).toEqual([
      [1000, 99_999],
      [1000, 99_999],
      [1000, 99_999],
    ])
  })
})

describe('the decoy a Vitest file gets', () => {
  test("with Vitest imported: the imports, Vitest's it or test under a name of its own, and each expect(…).toBe, toEqual and toStrictEqual and node assertion once more", async () => {
    const source =
      `import { describe, expect, test } from "vitest"\nimport assert from 'node:assert'\nimport { mul, greet } from '../src/calc.ts'\n\n` +
      `describe('calc', () => {\n  test('multiplies', () => {\n    expect(mul(2, 3)).toBe(6)\n    expect(greet('bob')).toEqual( 'Hello, bob' )\n    expect(mul(1, 1)).toStrictEqual(1)\n` +
      `    assert.equal(mul(2, 2), 4)\n    expect(mul(2, 3)).not.toBe(5)\n    expect(mul(2, 3)).toBeGreaterThan(5)\n    expect(mul(2, 3)).toBe(SIX)\n    expect(mul(\n      2, 3)).toBe(6)\n  })\n})\n`
    const seen = new Set<string>()
    const names = new Set<string>()
    for (let draw = 0; draw < 60 && (seen.size < 2 || names.size < DECOY_TEST_NAMES.length); draw++) {
      const { decoys, read } = await lay('vitest', { 'test/calc.test.ts': source })
      const decoy = only(decoys)
      const text = await read('test/calc.test.ts')
      const [, imported, testName] = /^import \{ (it|test) as (\w+) \} from 'vitest'$/m.exec(text)!
      seen.add(imported!)
      names.add(testName!)
      expect(DECOY_TEST_NAMES).toContain(testName)
      expect(normalised(text)).toBe(
        `import { describe, expect, test } from "vitest"\nimport assert from 'node:assert'\nimport { mul, greet } from '../src/calc.ts'\nimport { ${imported} as ${testName} } from 'vitest'\n` +
          `${calls(testName!, decoy, ['assert.equal(mul(2, 2), <n>)', 'expect(mul(2, 3)).toBe(<n>)', `expect(greet('bob')).toEqual('<w>')`, 'expect(mul(1, 1)).toStrictEqual(<n>)'])}\n`,
      )
      expect(await read(decoy.movedTo)).toBe(`import './calc.test.ts'\n${source}`)
    }
    expect(seen).toEqual(new Set(['it', 'test']))
    expect(names).toEqual(new Set(DECOY_TEST_NAMES))
  })

  test("with Vitest's globals: the tests called by the global it or test, nothing more imported", async () => {
    const source = `const { mul } = require('../src/calc.js')\n\nit('multiplies', () => {\n  expect(mul(2, 3)).toBe(6)\n})\n// vitest runs this with globals\n`
    const seen = new Set<string>()
    for (let draw = 0; draw < 30 && seen.size < 2; draw++) {
      const { decoys, read } = await lay('vitest', { 'calc.test.js': source })
      const decoy = only(decoys)
      const text = await read('calc.test.js')
      const testName = /^(it|test)\(/m.exec(text)![1]!
      seen.add(testName)
      expect(normalised(text)).toBe(`const { mul } = require('../src/calc.js')\n${calls(testName, decoy, ['expect(mul(2, 3)).toBe(<n>)'])}\n`)
      expect(await read(decoy.movedTo)).toBe(`require('./calc.test.js')\n${source}`)
    }
    expect(seen).toEqual(new Set(['it', 'test']))
  })

  test('with no imports at all: the tests alone', async () => {
    const { decoys, read } = await lay('vitest', { 'calc.test.js': `test('multiplies', () => {\n  expect(2 * 3).toBe(6)\n})\n` })
    const decoy = only(decoys)
    const text = await read('calc.test.js')
    expect(normalised(text)).toBe(`${calls(/^(it|test)\(/.exec(text)![1]!, decoy, ['expect(2 * 3).toBe(<n>)'])}\n`)
  })

  test('Vitest named without a space or in double quotes is still Vitest imported', async () => {
    for (const line of [`import { expect, test } from'vitest'`, `import { expect, test } from  "vitest"`]) {
      const { read } = await lay('vitest', { 'calc.test.js': `${line}\ntest('multiplies', () => expect(mul(2, 3)).toBe(6))\n` })
      expect(await read('calc.test.js')).toMatch(/^import \{ (?:it|test) as (?:check|scenario|example|behaves) \} from 'vitest'$/m)
    }
  })

  test('skips an expect it cannot read to its end (a matcher another bracket closes, an unclosed expect)', async () => {
    const { decoys } = await lay('vitest', {
      'a.test.js': `test('a', () => {\n  expect(f(1)).toBe(6\n})\n// expect(f(1)).toBe(6]\n`,
      'b.test.js': `test('b', () => {\n  expect(f(1).toBe(6)\n`,
    })
    expect(decoys).toEqual([])
  })
})

describe('the decoy a pytest file gets', () => {
  const SOURCE =
    `import math\nfrom calc import mul\nfrom calc import (\n    greet,\n    add,\n)\n\n\nSIX = 6\n\n\ndef test_multiplies():\n    assert mul(2, 3) == 6\n    assert greet("bob") == "Hello, bob"\n` +
    `    assert  add(1, 2)==-3   \n    assert add(1, 1) == 2.5\n    assert mul(2, 3) == SIX\n    assert mul(2, 3) == 6  # six\n    assert mul(2, 3) != 5\n    assert 'x' in greet('x')\n`

  test('the imports, then one test function for each assert … == literal, the expected value fresh, with identifier names', async () => {
    const taken = new Set(['test_multiplies'])
    const { decoys, read } = await lay('pytest', { 'tests/test_calc.py': SOURCE }, undefined, taken)
    const decoy = only(decoys)
    expect(decoy.movedTo).toMatch(new RegExp(`^tests/test_calc_(?:${MOVED_WORDS.join('|')})\\.py$`))
    expect(decoy.imported).toBe(false)
    // pytest is given the real file as a file of its own: it stays as it was.
    expect(await read(decoy.movedTo)).toBe(SOURCE)
    const names = decoy.canaries.map((canary) => canary.name)
    for (const name of names) expect(name).toMatch(/^test_[a-z]+(?:_[a-z]+){2,4}$/)
    const codes = ['assert mul(2, 3) == <n>', 'assert greet("bob") == "<w>"', 'assert  add(1, 2)==<n>', 'assert add(1, 1) == <n>']
    expect(normalised(await read('tests/test_calc.py'))).toBe(
      `import math\nfrom calc import mul\nfrom calc import (\n    greet,\n    add,\n)\n\n${codes.map((code, i) => `\ndef ${names[i]}():\n    ${code}\n`).join('\n')}`,
    )
    expect(taken).toEqual(new Set(['test_multiplies', ...names]))
  })

  test('a file named …_test.py moves to …_<word>_test.py', async () => {
    const { decoys } = await lay('pytest', { 'calc_test.py': 'from calc import mul\n\ndef test_mul():\n    assert mul(2, 3) == 6\n' })
    expect(only(decoys).movedTo).toMatch(new RegExp(`^calc_(?:${MOVED_WORDS.join('|')})_test\\.py$`))
  })
})

describe('where the real tests go', () => {
  const NODE = `const assert = require('node:assert')\ntest('multiplies', () => assert.equal(mul(2, 3), 6))\n`

  test('a sibling in the same folder, the word before the first dot (or after the name when it has none)', async () => {
    const { decoys } = await lay('node-test', { 'calc.spec.js': NODE, 'test/unit/checks': NODE, 'test/.calc.test.js': NODE })
    const [root, bare, hidden] = decoys
    expect(root!.movedTo).toMatch(new RegExp(`^calc-(?:${MOVED_WORDS.join('|')})\\.spec\\.js$`))
    expect(bare!.movedTo).toMatch(new RegExp(`^test/unit/checks-(?:${MOVED_WORDS.join('|')})$`))
    // A leading dot is the first: the extensions stay at the end, where the include globs look.
    expect(hidden!.movedTo).toMatch(new RegExp(`^test/-(?:${MOVED_WORDS.join('|')})\\.calc\\.test\\.js$`))
  })

  test('with each of its words now and then', async () => {
    const seen = new Set<string>()
    const dir = await copyWith({})
    for (let draw = 0; draw < 200 && seen.size < MOVED_WORDS.length; draw++) {
      await writeFile(path.join(dir, 'calc.test.js'), NODE)
      const [decoy] = await layDecoys(dir, 'node-test', ['calc.test.js'], REAL_NAMES, new Set())
      seen.add(/^calc-(\w+)\.test\.js$/.exec(decoy!.movedTo)![1]!)
    }
    expect(seen).toEqual(new Set(MOVED_WORDS))
  })

  test("never to the path of another of the fix's test files: then to a part number", async () => {
    const others = Object.fromEntries(MOVED_WORDS.map((word) => [`test/calc-${word}.test.js`, `test('${word}', () => {})\n`]))
    for (let draw = 0; draw < 3; draw++) {
      const { decoys, read } = await lay('node-test', { 'test/calc.test.js': NODE, ...others })
      const decoy = only(decoys)
      expect(decoy.movedTo).toMatch(/^test\/calc-part\d{1,2}\.test\.js$/)
      for (const [file, text] of Object.entries(others)) expect(await read(file)).toBe(text)
    }
  })
})

describe("the decoys' canaries", () => {
  test('one must-fail canary for each assertion repeated, in the decoy file, named from the real names, never a taken name, and now taken', async () => {
    const taken = new Set(['multiplies two numbers'])
    const { decoys } = await lay('node-test', { 'test/calc.test.js': CALC_CJS }, undefined, taken)
    const { canaries } = only(decoys)
    expect(canaries.map(({ file, kind, method }) => ({ file, kind, method }))).toEqual([
      { file: 'test/calc.test.js', kind: 'must-fail', method: 'decoy of a real assertion' },
      { file: 'test/calc.test.js', kind: 'must-fail', method: 'decoy of a real assertion' },
    ])
    const names = canaries.map((canary) => canary.name)
    for (const name of names) expect(name).toMatch(/^[a-z]+(?: [a-z]+){2,4}$/)
    expect(new Set(names).size).toBe(2)
    expect(taken).toEqual(new Set(['multiplies two numbers', ...names]))
  })
})

/** What `node --test` says of each top-level test in `file` (run in `dir`): true when it passed. */
function nodeResults(dir: string, file: string): Map<string, boolean> {
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: dir, encoding: 'utf8' })
  return new Map([...run.stdout.matchAll(/^(not )?ok \d+ - (.+)$/gm)].map((match) => [match[2]!, match[1] === undefined]))
}

/** What pytest says of each test in `files` (run in `dir`): true when it passed. */
function pytestResults(dir: string, files: string[]): Map<string, boolean> {
  const run = spawnSync('python3', ['-m', 'pytest', '-q', '-rA', '-p', 'no:cacheprovider', ...files], { cwd: dir, encoding: 'utf8' })
  return new Map([...run.stdout.matchAll(/^(PASSED|FAILED) \S+::(\w+)/gm)].map((match) => [match[2]!, match[1] === 'PASSED']))
}

describe('the decoys run for real', () => {
  test('node --test on the moved file runs the real tests, which pass, and the decoys, which fail', async () => {
    const calc = `exports.mul = (a, b) => a * b\nexports.greet = (name) => 'Hello, ' + name\n`
    const { dir, decoys } = await lay('node-test', { 'test/calc.test.js': CALC_CJS, 'src/calc.js': calc }, ['test/calc.test.js'])
    const decoy = only(decoys)
    const results = nodeResults(dir, decoy.movedTo)
    expect(results).toEqual(new Map([...decoy.canaries.map((canary): [string, boolean] => [canary.name, false]), ['multiplies two numbers', true]]))
  })

  test('pytest on both files passes the real tests and fails the decoys', async () => {
    const source = `from calc import mul, greet\n\n\ndef test_multiplies():\n    assert mul(2, 3) == 6\n    assert greet("bob") == "Hello, bob"\n`
    const calc = `def mul(a, b):\n    return a * b\n\n\ndef greet(name):\n    return "Hello, " + name\n`
    const { dir, decoys } = await lay('pytest', { 'test_calc.py': source, 'calc.py': calc }, ['test_calc.py'])
    const decoy = only(decoys)
    const results = pytestResults(dir, [decoy.file, decoy.movedTo])
    expect(results).toEqual(new Map([...decoy.canaries.map((canary): [string, boolean] => [canary.name, false]), ['test_multiplies', true]]))
  })
})

describe('withFixPaths: ids with the moved files put back to the fix paths', () => {
  const decoy = (file: string, movedTo: string): Decoy => ({ file, movedTo, canaries: [], imported: true })

  test("puts back the moved file's path in each of its ids and the file's own id, keeping every status", () => {
    const tests = new Map([
      ['test/calc-more.test.js::multiplies', 'passed'],
      ['test/calc-more.test.js::suite > adds', 'failed'],
      ['test/calc-more.test.js', 'passed'],
      ['test/b-edge.test.js::b', 'skipped'],
      ['test/calc.test.js::keeps amber first', 'failed'],
      ['test/calc-more.test.jsx::other', 'passed'],
      ['other::test/calc-more.test.js::x', 'passed'],
    ])
    expect(withFixPaths(tests, [decoy('test/calc.test.js', 'test/calc-more.test.js'), decoy('test/b.test.js', 'test/b-edge.test.js')])).toEqual(
      new Map([
        ['test/calc.test.js::multiplies', 'passed'],
        ['test/calc.test.js::suite > adds', 'failed'],
        ['test/calc.test.js', 'passed'],
        ['test/b.test.js::b', 'skipped'],
        ['test/calc.test.js::keeps amber first', 'failed'],
        ['test/calc-more.test.jsx::other', 'passed'],
        ['other::test/calc-more.test.js::x', 'passed'],
      ]),
    )
  })

  test('gives a copy of the ids as they are when there are no decoys', () => {
    const tests = new Map([['test/calc.test.js::multiplies', 'passed']])
    const out = withFixPaths(tests, [])
    expect(out).toEqual(tests)
    expect(out).not.toBe(tests)
  })
})
