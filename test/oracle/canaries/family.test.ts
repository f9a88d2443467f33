import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import nodeAssert from 'node:assert'
import strictAssert from 'node:assert/strict'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type CanaryKind, type CanaryStyle, type Draw, draw, drawAssertions, pick, shapesOf } from '../../../src/oracle/canaries/family.ts'
import { findPytestPython } from '../../helpers/throwaway.ts'

const KINDS: readonly CanaryKind[] = ['must-fail', 'must-pass']
const STYLES: readonly CanaryStyle[] = [
  { assert: 'verify', plainOk: false },
  { assert: 'verify', plainOk: true },
]
const fixed: Draw = { small: 12, large: 345, word: 'amber12', other: 'cedar456', key: 'total' }
const draws = (n: number) => [fixed, ...Array.from({ length: n - 1 }, draw)]

type Run = (...args: unknown[]) => unknown
const AsyncFunction = (async () => {}).constructor as new (...params: string[]) => Run

/**
 * Runs a JavaScript canary statement for real with `binding` bound to `value`: in an async function only when the
 * shape says it needs one (a synchronous body cannot hold an `await`). 'passed', or the name of what it threw.
 */
async function outcome(code: string, async: boolean, binding: string, value: unknown): Promise<string> {
  try {
    await (async ? new AsyncFunction(binding, code) : (new Function(binding, code) as Run))(value)
    return 'passed'
  } catch (error) {
    return (error as Error).name
  }
}

const expected = (kind: CanaryKind) => (kind === 'must-fail' ? 'AssertionError' : 'passed')

describe('pick', () => {
  test('draws every item of the list, and nothing else', () => {
    const items = ['a', 'b', 'c', 'd']
    const picked = Array.from({ length: 400 }, () => pick(items))
    expect(new Set(picked)).toEqual(new Set(items))
  })
})

describe('draw: fresh values for one assertion', () => {
  const drawMany = () => Array.from({ length: 2000 }, draw)

  test('gives two integers, the first at least 2 and smaller, at most 4,999 apart', () => {
    for (const d of drawMany()) {
      expect(Number.isInteger(d.small) && Number.isInteger(d.large)).toBe(true)
      expect(d.small).toBeGreaterThanOrEqual(2)
      expect(d.large - d.small).toBeGreaterThanOrEqual(1)
      expect(d.large - d.small).toBeLessThan(5000)
    }
  })

  test('gives two words of different stems, one with two digits after it and the other with three, neither a part of the other', () => {
    for (const d of drawMany()) {
      expect(d.word).toMatch(/^[a-z]+\d{2}$/)
      expect(d.other).toMatch(/^[a-z]+\d{3}$/)
      const [word, other] = [d.word.replace(/\d+$/, ''), d.other.replace(/\d+$/, '')]
      expect(word).not.toBe(other)
      expect(d.word.includes(d.other) || d.other.includes(d.word)).toBe(false)
      expect(d.word.includes(other) || d.other.includes(word)).toBe(false)
    }
  })

  test('gives a key that can stand unquoted in an object', () => {
    for (const d of drawMany()) expect(d.key).toMatch(/^[a-z]+$/)
  })

  test('draws afresh each time', () => {
    const many = drawMany()
    expect(new Set(many.map((d) => d.small)).size).toBeGreaterThan(1000)
    expect(new Set(many.map((d) => d.word)).size).toBeGreaterThan(500)
    expect(new Set(many.map((d) => d.other)).size).toBeGreaterThan(500)
    expect(new Set(many.map((d) => d.key)).size).toBeGreaterThan(5)
  })
})

describe('shapesOf: the assertion methods each framework has canaries for', () => {
  test('node:test: the methods of node:assert', () => {
    expect(shapesOf('node-test').map((shape) => shape.method)).toEqual([
      'equal',
      'strictEqual',
      'deepEqual',
      'deepStrictEqual',
      'notEqual',
      'notStrictEqual',
      'notDeepStrictEqual',
      'ok',
      'assert()',
      'match',
      'doesNotMatch',
      'throws',
      'doesNotThrow',
      'rejects',
    ])
  })

  test("Vitest: expect's matchers", () => {
    expect(shapesOf('vitest').map((shape) => shape.method)).toEqual([
      'toBe',
      'toEqual',
      'toStrictEqual',
      'toMatchObject',
      'toContainEqual',
      'toHaveProperty',
      'toBeGreaterThan',
      'toBeLessThan',
      'toMatch',
      'toContain',
      'toThrow',
      'toBeTruthy',
      'toHaveLength',
      'not',
      'toBeNull',
      'resolves',
    ])
  })

  test("pytest: assert's operators and pytest.raises", () => {
    expect(shapesOf('pytest').map((shape) => shape.method)).toEqual(['==', '==', '==', '==', '!=', '<', 'in', 'len', 'not', 'raises'])
  })
})

describe('the shapes of every framework', () => {
  const frameworks = ['node-test', 'vitest', 'pytest'] as const
  const another: Draw = { small: 47, large: 2901, word: 'willow33', other: 'quartz789', key: 'label' }

  test('write a must-fail canary that changes with the draw, so no fixed text recognises it', () => {
    for (const framework of frameworks)
      for (const shape of shapesOf(framework))
        for (const style of STYLES) expect(shape.code('must-fail', style, fixed), `${framework} ${shape.method}`).not.toBe(shape.code('must-fail', style, another))
  })

  test('match a pattern that is a part of the word, never the whole word', () => {
    /** The pattern a must-pass match looks for, or a must-fail doesNotMatch finds; undefined for other shapes. */
    const patternOf = (method: string, pass: string, fail: string) =>
      method === 'match' || method === 'toMatch'
        ? /\/(.*)\/\)$/.exec(pass)![1]!
        : method === 'doesNotMatch'
          ? /\/(.*)\/\)$/.exec(fail)![1]!
          : method === 'in'
            ? /^assert '(.*)' in /.exec(pass)![1]!
            : undefined
    let seen = 0
    for (const framework of frameworks)
      for (const shape of shapesOf(framework))
        for (const d of draws(20)) {
          const pattern = patternOf(shape.method, shape.code('must-pass', STYLES[0]!, d), shape.code('must-fail', STYLES[0]!, d))
          if (pattern === undefined) continue
          seen++
          expect(d.word.includes(pattern) && pattern !== d.word, `${shape.method}: ${pattern} in ${d.word}`).toBe(true)
        }
    expect(seen).toBe(4 * 20)
  })
})

describe('the node:test shapes, run for real against node:assert and node:assert/strict', () => {
  for (const shape of shapesOf('node-test')) {
    test(`${shape.method}: a must-fail canary throws an AssertionError and a must-pass one passes, with either style`, async () => {
      for (const d of draws(20))
        for (const style of STYLES)
          for (const kind of KINDS) {
            const code = shape.code(kind, style, d)
            expect(code).toMatch(/^(?:await )?verify\b/)
            for (const module of [nodeAssert, strictAssert]) expect(await outcome(code, shape.async === true, 'verify', module), `${kind}: ${code}`).toBe(expected(kind))
          }
    })
  }

  test('ok() and a call of the module itself carry a word as their message, or none in the plain style', async () => {
    for (const method of ['ok', 'assert()']) {
      const shape = shapesOf('node-test').find((s) => s.method === method)!
      const call = method === 'ok' ? 'verify.ok' : 'verify'
      expect(shape.code('must-fail', STYLES[0]!, fixed)).toBe(`${call}(345 < 12, 'amber12')`)
      expect(shape.code('must-pass', STYLES[0]!, fixed)).toBe(`${call}(12 < 345, 'amber12')`)
      expect(shape.code('must-fail', STYLES[1]!, fixed)).toBe(`${call}(345 < 12)`)
      expect(shape.code('must-pass', STYLES[1]!, fixed)).toBe(`${call}(12 < 345)`)
      // The failure's message is the word: the call carries it as the file's own calls do.
      expect(() => new Function('verify', shape.code('must-fail', STYLES[0]!, fixed))(nodeAssert)).toThrowError(/^amber12$/)
    }
  })
})

describe('the Vitest shapes, run for real against expect', () => {
  for (const shape of shapesOf('vitest')) {
    test(`${shape.method}: a must-fail canary throws an AssertionError and a must-pass one passes`, async () => {
      for (const d of draws(20))
        for (const kind of KINDS) {
          const code = shape.code(kind, { assert: 'expectThat', plainOk: false }, d)
          expect(code).toMatch(/^(?:await )?expectThat\(/)
          expect(await outcome(code, shape.async === true, 'expectThat', expect), `${kind}: ${code}`).toBe(expected(kind))
        }
    })
  }
})

const python = findPytestPython()

describe.skipIf(python === null)(`the pytest shapes, run for real by pytest${python === null ? ' — SKIPPED: no python3 with pytest' : ''}`, () => {
  test('a must-fail canary fails its assertion (or raises nothing) and a must-pass one passes', async () => {
    const cases = shapesOf('pytest').flatMap((shape, s) =>
      draws(5).flatMap((d, i) =>
        KINDS.map((kind) => ({ name: `test_${s}_${i}_${kind.replace('-', '_')}`, kind, code: shape.code(kind, { assert: 'assert', plainOk: false }, d) })),
      ),
    )
    const source = ['import pytest', '', ...cases.map(({ name, code }) => `def ${name}():\n    ${code}\n`)].join('\n')
    const dir = await mkdtemp(path.join(os.tmpdir(), 'canary-family-'))
    try {
      await writeFile(path.join(dir, 'test_canaries.py'), source)
      const run = spawnSync(python!, ['-m', 'pytest', '-p', 'no:cacheprovider', '-q', '-rA', 'test_canaries.py'], { cwd: dir, encoding: 'utf8' })
      const outcomes = new Map([...run.stdout.matchAll(/^(PASSED|FAILED) test_canaries\.py::(\w+)(?: - (.*))?$/gm)].map((m) => [m[2]!, m[1] === 'PASSED' ? 'passed' : m[3]!]))
      expect(outcomes.size, run.stdout).toBe(cases.length)
      for (const { name, kind, code } of cases) {
        if (kind === 'must-pass') expect(outcomes.get(name), code).toBe('passed')
        else expect(outcomes.get(name), code).toMatch(/^(?:(?:AssertionError: )?assert |Failed: DID NOT RAISE)/)
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('drawAssertions: the canary assertions of one file', () => {
  const style: CanaryStyle = { assert: 'assert', plainOk: false }

  test('draws the must-fail ones first, then the must-pass ones, as many as asked', () => {
    const drawn = drawAssertions('node-test', style, [], 3, 2)
    expect(drawn.map((a) => a.kind)).toEqual(['must-fail', 'must-fail', 'must-fail', 'must-pass', 'must-pass'])
    expect(drawAssertions('vitest', style, [], 0, 0)).toEqual([])
    expect(drawAssertions('vitest', style, [], 0, 1).map((a) => a.kind)).toEqual(['must-pass'])
  })

  test('makes a must-fail canary of each method the real tests use that the family knows, first, in the family order', () => {
    const drawn = drawAssertions('node-test', style, ['match', 'deepEqual', 'toBe', 'fail'], 4, 1)
    expect(drawn.map((a) => `${a.kind} ${a.method}`).slice(0, 2)).toEqual(['must-fail deepEqual', 'must-fail match'])
    expect(drawn.map((a) => a.kind)).toEqual(['must-fail', 'must-fail', 'must-fail', 'must-fail', 'must-pass'])
  })

  test('makes one of each used method even when that is more than the must-fail canaries asked for', () => {
    const used = ['equal', 'ok', 'throws', 'rejects']
    const drawn = drawAssertions('node-test', style, used, 2, 1)
    expect(drawn.map((a) => `${a.kind} ${a.method}`)).toEqual(['must-fail equal', 'must-fail ok', 'must-fail throws', 'must-fail rejects', `must-pass ${drawn[4]!.method}`])
  })

  test("covers each of pytest's shapes of a used operator", () => {
    const drawn = drawAssertions('pytest', style, ['=='], 1, 0)
    expect(drawn.map((a) => a.method)).toEqual(['==', '==', '==', '=='])
    expect(new Set(drawn.map((a) => a.code.replace(/\d+/g, 'N').replace(/'[^']*'/g, 'W'))).size).toBe(4)
  })

  test("gives each assertion its shape's method, its kind's code with the file's style and fresh values, and whether it awaits", async () => {
    const drawn = drawAssertions('node-test', { assert: 'verify', plainOk: true }, [], 300, 300)
    for (const a of drawn) {
      expect(a.async).toBe(a.method === 'rejects')
      expect(a.code.startsWith('await ')).toBe(a.async)
      expect(await outcome(a.code, a.async, 'verify', nodeAssert), a.code).toBe(expected(a.kind))
      if (a.method === 'ok') expect(a.code).toMatch(/^verify\.ok\(\d+ < \d+\)$/)
    }
    for (const kind of KINDS) expect(new Set(drawn.filter((a) => a.kind === kind).map((a) => a.method))).toEqual(new Set(shapesOf('node-test').map((s) => s.method)))
    expect(new Set(drawn.map((a) => a.code)).size).toBeGreaterThan(550)
  })
})
