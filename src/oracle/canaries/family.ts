import { randomInt } from 'node:crypto'
import type { CanaryFramework } from './framework.ts'

/**
 * The family of canary assertions: for each framework, shapes of assertions
 * that must fail and their twins that must pass, each exercising one
 * assertion method with values drawn fresh for every run. A canary test holds
 * one of them; which method, which values and which kind are drawn at random,
 * so no one pattern or literal recognises them.
 */

/** Whether a canary must fail or must pass. */
export type CanaryKind = 'must-fail' | 'must-pass'

/** How the canaries of one test file are written, so that they look like its own assertions. */
export interface CanaryStyle {
  /** The assertion binding's name (assert / expect) in the canaries' block. */
  readonly assert: string
  /**
   * The file calls `ok()` or the assertion module itself with no message: so
   * do the canaries (a message only they carried would tell them from the
   * real tests to code that handed the file a fake assert), paying what a
   * failing message-less call costs (node reads and parses its own source to
   * word one, about 13 ms).
   */
  readonly plainOk: boolean
}

/** One shape: the assertion method it exercises and its code for either kind. */
interface Shape {
  /** The method (`ok`, `deepEqual`, …), or `assert()` for a call of the assertion module itself. */
  readonly method: string
  /** The assertion statement(s). */
  code(kind: CanaryKind, style: CanaryStyle, draw: Draw): string
  /** The statement needs an async test body. */
  readonly async?: boolean
}

/** Fresh values for one assertion. */
export interface Draw {
  /** Two different integers, the first smaller. */
  readonly small: number
  readonly large: number
  /** Two words, neither a part of the other. */
  readonly word: string
  readonly other: string
  readonly key: string
}

const WORDS = [
  'amber',
  'basin',
  'cedar',
  'delta',
  'ember',
  'fjord',
  'grove',
  'harbor',
  'inlet',
  'juniper',
  'kestrel',
  'lagoon',
  'meadow',
  'nectar',
  'orchid',
  'pebble',
  'quartz',
  'raven',
  'saffron',
  'tundra',
  'umber',
  'violet',
  'willow',
  'yarrow',
  'zephyr',
  'copper',
  'lantern',
  'marble',
  'summit',
  'timber',
  'velvet',
  'walnut',
]
const KEYS = ['id', 'name', 'total', 'count', 'value', 'label', 'amount', 'kind', 'size', 'code']

/** One of the items, drawn uniformly. */
export function pick<T>(items: readonly T[]): T {
  return items[randomInt(items.length)]!
}

/** A fresh draw of values. */
export function draw(): Draw {
  const small = randomInt(2, 5000)
  const large = small + randomInt(1, 5000)
  let word = pick(WORDS)
  let other = pick(WORDS)
  while (other === word || other.includes(word) || word.includes(other)) other = pick(WORDS)
  if (randomInt(2) === 0) [word, other] = [other, word]
  return { small, large, word: `${word}${randomInt(10, 99)}`, other: `${other}${randomInt(100, 999)}`, key: pick(KEYS) }
}

const q = (text: string) => `'${text}'`
/** A comparison that is false for a must-fail canary, true for a must-pass one. */
const truthy = (kind: CanaryKind, d: Draw) => (kind === 'must-fail' ? `${d.large} < ${d.small}` : `${d.small} < ${d.large}`)
const message = (style: CanaryStyle, d: Draw) => (style.plainOk ? '' : `, ${q(d.word)}`)

const NODE_SHAPES: readonly Shape[] = [
  { method: 'equal', code: (k, { assert }, d) => `${assert}.equal(${d.small}, ${k === 'must-fail' ? d.large : d.small})` },
  { method: 'strictEqual', code: (k, { assert }, d) => `${assert}.strictEqual(${q(d.word)}, ${q(k === 'must-fail' ? d.other : d.word)})` },
  { method: 'deepEqual', code: (k, { assert }, d) => `${assert}.deepEqual({ ${d.key}: ${d.small} }, { ${d.key}: ${k === 'must-fail' ? d.large : d.small} })` },
  {
    method: 'deepStrictEqual',
    code: (k, { assert }, d) => `${assert}.deepStrictEqual([${d.small}, ${q(d.word)}], [${k === 'must-fail' ? d.large : d.small}, ${q(d.word)}])`,
  },
  { method: 'notEqual', code: (k, { assert }, d) => `${assert}.notEqual(${d.large}, ${k === 'must-fail' ? d.large : d.small})` },
  { method: 'notStrictEqual', code: (k, { assert }, d) => `${assert}.notStrictEqual(${q(d.other)}, ${q(k === 'must-fail' ? d.other : d.word)})` },
  { method: 'notDeepStrictEqual', code: (k, { assert }, d) => `${assert}.notDeepStrictEqual([${d.small}], [${k === 'must-fail' ? d.small : d.large}])` },
  // A message unless the file's own calls have none (CanaryStyle.plainOk).
  { method: 'ok', code: (k, style, d) => `${style.assert}.ok(${truthy(k, d)}${message(style, d)})` },
  { method: 'assert()', code: (k, style, d) => `${style.assert}(${truthy(k, d)}${message(style, d)})` },
  { method: 'match', code: (k, { assert }, d) => `${assert}.match(${q(d.word)}, /${k === 'must-fail' ? d.other : d.word.slice(0, 4)}/)` },
  { method: 'doesNotMatch', code: (k, { assert }, d) => `${assert}.doesNotMatch(${q(d.word)}, /${k === 'must-fail' ? d.word.slice(1, 5) : d.other}/)` },
  {
    method: 'throws',
    code: (k, { assert }, d) => (k === 'must-fail' ? `${assert}.throws(() => ${d.small})` : `${assert}.throws(() => { throw new RangeError(${q(d.word)}) })`),
  },
  {
    method: 'doesNotThrow',
    code: (k, { assert }, d) => (k === 'must-fail' ? `${assert}.doesNotThrow(() => { throw new TypeError(${q(d.word)}) })` : `${assert}.doesNotThrow(() => ${d.small})`),
  },
  {
    method: 'rejects',
    async: true,
    code: (k, { assert }, d) => `await ${assert}.rejects(${k === 'must-fail' ? `Promise.resolve(${d.small})` : `Promise.reject(new Error(${q(d.word)}))`})`,
  },
]

const VITEST_SHAPES: readonly Shape[] = [
  { method: 'toBe', code: (k, { assert }, d) => `${assert}(${d.small}).toBe(${k === 'must-fail' ? d.large : d.small})` },
  { method: 'toEqual', code: (k, { assert }, d) => `${assert}({ ${d.key}: ${q(d.word)} }).toEqual({ ${d.key}: ${q(k === 'must-fail' ? d.other : d.word)} })` },
  { method: 'toStrictEqual', code: (k, { assert }, d) => `${assert}([${d.small}, ${q(d.word)}]).toStrictEqual([${k === 'must-fail' ? d.large : d.small}, ${q(d.word)}])` },
  // Matchers that consult expect.addEqualityTesters' testers, as toEqual and toStrictEqual do.
  {
    method: 'toMatchObject',
    code: (k, { assert }, d) => `${assert}({ ${d.key}: ${q(d.word)}, extra: ${d.small} }).toMatchObject({ ${d.key}: ${q(k === 'must-fail' ? d.other : d.word)} })`,
  },
  { method: 'toContainEqual', code: (k, { assert }, d) => `${assert}([{ ${d.key}: ${d.small} }]).toContainEqual({ ${d.key}: ${k === 'must-fail' ? d.large : d.small} })` },
  { method: 'toHaveProperty', code: (k, { assert }, d) => `${assert}({ ${d.key}: ${q(d.word)} }).toHaveProperty(${q(d.key)}, ${q(k === 'must-fail' ? d.other : d.word)})` },
  { method: 'toBeGreaterThan', code: (k, { assert }, d) => `${assert}(${k === 'must-fail' ? d.small : d.large}).toBeGreaterThan(${k === 'must-fail' ? d.large : d.small})` },
  { method: 'toBeLessThan', code: (k, { assert }, d) => `${assert}(${k === 'must-fail' ? d.large : d.small}).toBeLessThan(${k === 'must-fail' ? d.small : d.large})` },
  { method: 'toMatch', code: (k, { assert }, d) => `${assert}(${q(d.word)}).toMatch(/${k === 'must-fail' ? d.other : d.word.slice(0, 4)}/)` },
  { method: 'toContain', code: (k, { assert }, d) => `${assert}([${q(d.word)}, ${d.small}]).toContain(${k === 'must-fail' ? q(d.other) : d.small})` },
  {
    method: 'toThrow',
    code: (k, { assert }, d) => (k === 'must-fail' ? `${assert}(() => ${d.small}).toThrow()` : `${assert}(() => { throw new RangeError(${q(d.word)}) }).toThrow(${q(d.word)})`),
  },
  { method: 'toBeTruthy', code: (k, { assert }, d) => `${assert}(${k === 'must-fail' ? `${d.large} < ${d.small}` : `${d.small} < ${d.large}`}).toBeTruthy()` },
  { method: 'toHaveLength', code: (k, { assert }, d) => `${assert}(${q(d.word)}).toHaveLength(${k === 'must-fail' ? d.word.length + 1 : d.word.length})` },
  { method: 'not', code: (k, { assert }, d) => `${assert}(${d.large}).not.toBe(${k === 'must-fail' ? d.large : d.small})` },
  { method: 'toBeNull', code: (k, { assert }, d) => `${assert}(${k === 'must-fail' ? d.small : 'null'}).toBeNull()` },
  {
    method: 'resolves',
    async: true,
    code: (k, { assert }, d) => `await ${assert}(Promise.resolve(${q(d.word)})).resolves.toBe(${q(k === 'must-fail' ? d.other : d.word)})`,
  },
]

const PYTEST_SHAPES: readonly Shape[] = [
  { method: '==', code: (k, _, d) => `assert ${d.small} == ${k === 'must-fail' ? d.large : d.small}` },
  { method: '==', code: (k, _, d) => `assert ${q(d.word)} == ${q(k === 'must-fail' ? d.other : d.word)}` },
  { method: '==', code: (k, _, d) => `assert {${q(d.key)}: ${d.small}} == {${q(d.key)}: ${k === 'must-fail' ? d.large : d.small}}` },
  { method: '==', code: (k, _, d) => `assert [${d.small}, ${q(d.word)}] == [${k === 'must-fail' ? d.large : d.small}, ${q(d.word)}]` },
  { method: '!=', code: (k, _, d) => `assert ${d.large} != ${k === 'must-fail' ? d.large : d.small}` },
  { method: '<', code: (k, _, d) => `assert ${k === 'must-fail' ? `${d.large} < ${d.small}` : `${d.small} < ${d.large}`}` },
  { method: 'in', code: (k, _, d) => `assert ${q(k === 'must-fail' ? d.other : d.word.slice(0, 4))} in ${q(d.word)}` },
  { method: 'len', code: (k, _, d) => `assert len(${q(d.word)}) == ${k === 'must-fail' ? d.word.length + 1 : d.word.length}` },
  { method: 'not', code: (k, _, d) => `assert not ${k === 'must-fail' ? `${d.small} < ${d.large}` : `${d.large} < ${d.small}`}` },
  {
    method: 'raises',
    code: (k, _, d) => `with pytest.raises(ValueError):\n        int(${q(k === 'must-fail' ? String(d.small) : d.word)})`,
  },
]

/** The shapes of a framework. */
export function shapesOf(framework: CanaryFramework): readonly Shape[] {
  return framework === 'node-test' ? NODE_SHAPES : framework === 'vitest' ? VITEST_SHAPES : PYTEST_SHAPES
}

/** One drawn canary assertion. */
export interface CanaryAssertion {
  readonly kind: CanaryKind
  readonly method: string
  readonly code: string
  readonly async: boolean
}

/**
 * Draws `mustFail` failing and `mustPass` passing assertions. The failing
 * ones cover every method in `usedMethods` the family knows first (a
 * disarm of exactly the methods the real tests use is still caught), then
 * random ones.
 */
export function drawAssertions(framework: CanaryFramework, style: CanaryStyle, usedMethods: readonly string[], mustFail: number, mustPass: number): CanaryAssertion[] {
  const shapes = shapesOf(framework)
  const used = shapes.filter((shape) => usedMethods.includes(shape.method))
  const failing: Shape[] = [...new Set(used)]
  while (failing.length < mustFail) failing.push(pick(shapes))
  const passing = Array.from({ length: mustPass }, () => pick(shapes))
  const make = (shape: Shape, kind: CanaryKind): CanaryAssertion => ({
    kind,
    method: shape.method,
    code: shape.code(kind, style, draw()),
    async: shape.async === true,
  })
  return [...failing.map((shape) => make(shape, 'must-fail')), ...passing.map((shape) => make(shape, 'must-pass'))]
}
