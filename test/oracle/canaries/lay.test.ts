import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { type Canary, layCanaries } from '../../../src/oracle/canaries/lay.ts'

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
