/**
 * The values the JavaScript analysis follows: a root (an assertion library, the
 * test runner, the module loader, `process`, a global) and the properties read
 * from it. `assert.strict.equal` is `{ root: 'assert', path: ['strict', 'equal'] }`
 * however it was reached: an import, `require`, `createRequire`, a destructuring,
 * an alias, `globalThis`, a computed key the analysis can read (`'*'` when it cannot).
 */

/** What a value stands for. */
export type Root =
  /** `node:assert` and `node:assert/strict`. */
  | 'assert'
  /** Vitest's, Jest's or the `expect` package's `expect`. */
  | 'expect'
  | 'chai'
  /** `node:test`, Vitest's `test`/`vi`/`describe`/…, Jest's globals. */
  | 'test'
  /** A module namespace that holds `expect`, chai and the runner's globals (`vitest`, `@jest/globals`). */
  | 'vitest'
  /** `node:module` (`Module._load`, `register`). */
  | 'module'
  /** CommonJS's free `module` (its `constructor` is `node:module`). */
  | 'cjs-module'
  /** A `require` function (its argument is loaded). */
  | 'require'
  | 'process'
  /** The global object (`globalThis`, `global`, `window`, `self`, or a free name: `globalThis.x`). */
  | 'global'
  | 'Object'
  | 'Reflect'
  /** The Function constructor, however reached (`Function`, `x.constructor.constructor`). */
  | 'Function'
  | 'eval'
  | 'fs'
  | 'vm'

/** A value: its root and the property path read from it. */
export interface KnownValue {
  readonly root: Root
  readonly path: readonly string[]
}

/** A property key the analysis cannot read. */
export const ANY_KEY = '*'

const GLOBAL_OBJECT = new Set(['globalThis', 'global', 'window', 'self'])
const RUNNER_GLOBALS = new Set([
  'test',
  'it',
  'describe',
  'suite',
  'bench',
  'vi',
  'vitest',
  'jest',
  'beforeAll',
  'beforeEach',
  'afterAll',
  'afterEach',
  'onTestFailed',
  'onTestFinished',
])
const GLOBAL_ROOTS: ReadonlyMap<string, Root> = new Map([
  ['process', 'process'],
  ['require', 'require'],
  ['module', 'cjs-module'],
  ['Object', 'Object'],
  ['Reflect', 'Reflect'],
  ['Function', 'Function'],
  ['eval', 'eval'],
  ['expect', 'expect'],
  ['chai', 'chai'],
])
/** Roots that are modules: their `default` export is the module itself. */
const MODULE_ROOTS = new Set<Root>(['assert', 'expect', 'chai', 'test', 'vitest', 'module', 'process', 'fs', 'vm'])

/** The value `root` with `path` read from it, in its one canonical form. */
export function known(root: Root, path: readonly string[]): KnownValue {
  const rest = MODULE_ROOTS.has(root) && path[0] === 'default' ? path.slice(1) : path
  const [first, ...tail] = rest
  if (first === undefined) return { root, path: rest }
  if (root === 'global') {
    if (GLOBAL_OBJECT.has(first)) return known('global', tail)
    if (first === 'assert') return known('chai', rest)
    const global = GLOBAL_ROOTS.get(first)
    if (global !== undefined) return known(global, tail)
    if (RUNNER_GLOBALS.has(first)) return known('test', rest)
  }
  if (root === 'vitest') {
    if (first === 'expect') return known('expect', tail)
    if (first === 'chai') return known('chai', tail)
    if (first === 'assert' || first === 'should') return known('chai', rest)
    return known('test', rest)
  }
  if (root === 'cjs-module') {
    if (first === 'constructor') return known('module', tail)
    if (first === 'require') return known('require', tail)
  }
  return { root, path: rest }
}

/** Roots that are objects, not functions, when nothing was read from them. */
const OBJECT_ROOTS = new Set<Root>(['global', 'process', 'cjs-module', 'fs', 'vm', 'vitest', 'chai', 'Reflect'])

/**
 * `value` with `key` read from it. The `constructor` of a function is the
 * Function constructor (`assert.constructor('…')` compiles code as `Function` does).
 */
export function member(value: KnownValue, key: string): KnownValue {
  if (key === 'constructor' && (value.path.length > 0 || !OBJECT_ROOTS.has(value.root))) return known('Function', [])
  return known(value.root, [...value.path, key])
}

const MODULES: ReadonlyMap<string, KnownValue> = new Map([
  ...['assert', 'node:assert'].map((name) => [name, known('assert', [])] as const),
  ...['assert/strict', 'node:assert/strict'].map((name) => [name, known('assert', ['strict'])] as const),
  ['node:test', known('test', [])],
  ...['vitest', '@jest/globals'].map((name) => [name, known('vitest', [])] as const),
  ...['expect', '@vitest/expect', '@jest/expect'].map((name) => [name, known('expect', [])] as const),
  ['chai', known('chai', [])],
  ...['module', 'node:module'].map((name) => [name, known('module', [])] as const),
  ...['process', 'node:process'].map((name) => [name, known('process', [])] as const),
  ...['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'fs-extra', 'graceful-fs'].map((name) => [name, known('fs', [])] as const),
  ...['vm', 'node:vm'].map((name) => [name, known('vm', [])] as const),
])

/** What loading the module `specifier` gives (null: a module the analysis does not follow). */
export function loadedModule(specifier: string): KnownValue | null {
  return MODULES.get(specifier) ?? null
}

/** Whether `specifier` names a module whose exports are assertions or the runner (a mock of it replaces them). */
export function guardedModule(specifier: string): Root | null {
  const value = loadedModule(specifier)
  if (value === null) return null
  return value.root === 'assert' || value.root === 'expect' || value.root === 'chai' || value.root === 'test' || value.root === 'vitest' ? value.root : null
}
