import { describe, expect, test } from 'vitest'
import { guardedModule, type KnownValue, known, loadedModule, member, type Root } from '../../../src/oracle/disarming/script-values.ts'

/** A value written as the analysis prints it: `root` and its path joined by dots (`assert.strict.equal`). */
function show(value: KnownValue | null): string | null {
  return value === null ? null : [value.root, ...value.path].join('.')
}

describe('known: one canonical form for a value however it was reached', () => {
  test.each<[Root, string[], string]>([
    ['assert', ['default', 'ok'], 'assert.ok'],
    ['expect', ['default', 'extend'], 'expect.extend'],
    ['chai', ['default', 'use'], 'chai.use'],
    ['test', ['default', 'mock'], 'test.mock'],
    ['module', ['default', '_load'], 'module._load'],
    ['process', ['default', 'exit'], 'process.exit'],
    ['fs', ['default', 'readFileSync'], 'fs.readFileSync'],
    ['vm', ['default', 'runInThisContext'], 'vm.runInThisContext'],
    ['vitest', ['default', 'expect'], 'expect'],
  ])("a module's default export is the module itself: %s %j is %s", (root, path, shown) => {
    expect(show(known(root, path))).toBe(shown)
  })

  test.each<[Root, string[], string]>([
    ['require', ['default'], 'require.default'],
    ['global', ['default'], 'global.default'],
    ['Object', ['default'], 'Object.default'],
    ['assert', ['ok', 'default'], 'assert.ok.default'],
  ])('`default` is kept on what is not a module, and past the first key: %s %j is %s', (root, path, shown) => {
    expect(show(known(root, path))).toBe(shown)
  })

  test.each<[string[], string]>([
    [[], 'global'],
    [['globalThis', 'global', 'window', 'self', 'process', 'exit'], 'process.exit'],
    [['assert', 'equal'], 'chai.assert.equal'],
    [['process', 'exit'], 'process.exit'],
    [['require', 'cache'], 'require.cache'],
    [['module', 'constructor', '_load'], 'module._load'],
    [['module', 'require'], 'require'],
    [['Object', 'assign'], 'Object.assign'],
    [['Reflect', 'set'], 'Reflect.set'],
    [['Function'], 'Function'],
    [['eval'], 'eval'],
    [['expect', 'extend'], 'expect.extend'],
    [['chai', 'use'], 'chai.use'],
    [['fetch'], 'global.fetch'],
  ])('a global: global %j is %s', (path, shown) => {
    expect(show(known('global', path))).toBe(shown)
  })

  test.each(['test', 'it', 'describe', 'suite', 'bench', 'vi', 'vitest', 'jest', 'beforeAll', 'beforeEach', 'afterAll', 'afterEach', 'onTestFailed', 'onTestFinished'])(
    "the runner's global %s is the test root",
    (name) => {
      expect(show(known('global', [name, 'x']))).toBe(`test.${name}.x`)
    },
  )

  test.each<[string[], string]>([
    [[], 'vitest'],
    [['expect', 'extend'], 'expect.extend'],
    [['chai', 'use'], 'chai.use'],
    [['assert', 'equal'], 'chai.assert.equal'],
    [['should'], 'chai.should'],
    [['vi', 'mock'], 'test.vi.mock'],
  ])('the vitest namespace: vitest %j is %s', (path, shown) => {
    expect(show(known('vitest', path))).toBe(shown)
  })

  test.each<[string[], string]>([
    [['constructor', '_load'], 'module._load'],
    [['require', 'cache'], 'require.cache'],
    [['exports'], 'cjs-module.exports'],
    [[], 'cjs-module'],
  ])("CommonJS's free module: %j is %s", (path, shown) => {
    expect(show(known('cjs-module', path))).toBe(shown)
  })

  test.each<[Root, string[], string]>([
    ['process', ['process'], 'process.process'],
    ['assert', ['globalThis', 'process'], 'assert.globalThis.process'],
    ['test', ['expect'], 'test.expect'],
    ['chai', ['assert'], 'chai.assert'],
    ['fs', ['constructor'], 'fs.constructor'],
    ['module', ['require'], 'module.require'],
  ])('the special keys belong to their own roots only: %s %j is %s', (root, path, shown) => {
    expect(show(known(root, path))).toBe(shown)
  })
})

describe('member: a key read from a value', () => {
  test('a plain key extends the path, canonically', () => {
    expect(show(member(known('assert', []), 'strict'))).toBe('assert.strict')
    expect(show(member(known('assert', ['strict']), 'equal'))).toBe('assert.strict.equal')
    expect(show(member(known('vitest', []), 'expect'))).toBe('expect')
  })
  test.each<Root>(['assert', 'expect', 'test', 'module', 'require', 'Object', 'Function', 'eval'])('the constructor of the function %s is Function', (root) => {
    expect(show(member(known(root, []), 'constructor'))).toBe('Function')
  })
  test('the constructor of anything read from a root is Function', () => {
    expect(show(member(known('process', ['exit']), 'constructor'))).toBe('Function')
    expect(show(member(known('global', ['setTimeout']), 'constructor'))).toBe('Function')
  })
  test.each<[Root, string]>([
    ['global', 'global.constructor'],
    ['process', 'process.constructor'],
    ['cjs-module', 'module'],
    ['fs', 'fs.constructor'],
    ['vm', 'vm.constructor'],
    ['vitest', 'test.constructor'],
    ['chai', 'chai.constructor'],
    ['Reflect', 'Reflect.constructor'],
  ])('the constructor of the object %s is a key like any other: %s', (root, shown) => {
    expect(show(member(known(root, []), 'constructor'))).toBe(shown)
  })
})

describe('loadedModule and guardedModule: the modules the analysis follows', () => {
  test.each<[string, string]>([
    ['assert', 'assert'],
    ['node:assert', 'assert'],
    ['assert/strict', 'assert.strict'],
    ['node:assert/strict', 'assert.strict'],
    ['node:test', 'test'],
    ['vitest', 'vitest'],
    ['@jest/globals', 'vitest'],
    ['expect', 'expect'],
    ['@vitest/expect', 'expect'],
    ['@jest/expect', 'expect'],
    ['chai', 'chai'],
    ['module', 'module'],
    ['node:module', 'module'],
    ['process', 'process'],
    ['node:process', 'process'],
    ['fs', 'fs'],
    ['node:fs', 'fs'],
    ['fs/promises', 'fs'],
    ['node:fs/promises', 'fs'],
    ['fs-extra', 'fs'],
    ['graceful-fs', 'fs'],
    ['vm', 'vm'],
    ['node:vm', 'vm'],
  ])('%s loads %s', (specifier, shown) => {
    expect(show(loadedModule(specifier))).toBe(shown)
  })
  test.each(['lodash', 'test', 'node:path', ''])('%j is not followed', (specifier) => {
    expect(loadedModule(specifier)).toBeNull()
    expect(guardedModule(specifier)).toBeNull()
  })
  test.each<[string, Root | null]>([
    ['node:assert', 'assert'],
    ['node:assert/strict', 'assert'],
    ['expect', 'expect'],
    ['chai', 'chai'],
    ['node:test', 'test'],
    ['vitest', 'vitest'],
    ['@jest/globals', 'vitest'],
    ['node:module', null],
    ['node:process', null],
    ['node:fs', null],
    ['node:vm', null],
  ])('a mock of %s replaces the root %s', (specifier, root) => {
    expect(guardedModule(specifier)).toBe(root)
  })
})
