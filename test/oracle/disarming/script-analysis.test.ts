import { describe, expect, test } from 'vitest'
import { FLAG } from '../../../src/oracle/disarming/flags.ts'
import { analyseScript } from '../../../src/oracle/disarming/script-analysis.ts'

/** The flags the analysis finds in `source` (as the file `file`), each once, as `<flag>:<line>`. */
function flags(source: string, file = 'src/module.js'): string[] {
  const seen = new Map<string, number | null>()
  for (const { name, line } of analyseScript(file, source)) if (!seen.has(name)) seen.set(name, line)
  return [...seen].map(([name, line]) => `${name}:${line}`).sort()
}

const ASSERT = `${FLAG.replacesAssert}:2`

describe('writes to node:assert, in any syntax', () => {
  test.each([
    ['a property assigned with a dot', "import assert from 'node:assert'\nassert.strictEqual = () => {}\n"],
    ['a computed key the analysis can read', "import assert from 'node:assert'\nassert['strict' + 'Equal'] = () => {}\n"],
    ['a computed key it cannot read (a loop over the keys)', "import assert from 'node:assert'\nfor (const k of Object.keys(assert)) assert[k] = () => {}\n"],
    ['Object.assign', "import assert from 'node:assert'\nObject.assign(assert, { ok() {} })\n"],
    ['Object.defineProperty on the namespace default', "import * as a from 'node:assert'\nObject.defineProperty(a.default, 'equal', { value: () => {} })\n"],
    ['Object.defineProperties', "const a = require('assert')\nObject.defineProperties(a, { ok: { value: () => {} } })\n"],
    ['Reflect.set', "const a = require('assert')\nReflect.set(a, 'deepEqual', () => {})\n"],
    ['Reflect.defineProperty through an alias of Reflect', "const a = require('assert')\nconst R = Reflect; R.defineProperty(a, 'ok', { value: () => {} })\n"],
    ['delete', "const a = require('node:assert')\ndelete a.throws\n"],
    ['a destructuring assignment target', "import assert from 'assert'\n;({ x: assert.ok } = { x: () => {} })\n"],
    ['Object.assign taken apart (`const { assign } = Object`)', "const { assign } = Object\nconst { strict } = require('node:assert'); assign(strict, { equal() {} })\n"],
    ['node:assert/strict', "import strict from 'node:assert/strict'\nstrict.equal = () => {}\n"],
    ['a named import', "import { strict } from 'node:assert'\nstrict.equal = () => {}\n"],
    [
      'a module name built from strings through createRequire',
      "import { createRequire } from 'node:module'\nconst m = createRequire(import.meta.url)(['ass', 'ert'].join('')); m.ok = () => {}\n",
    ],
    ['a reversed string through process.getBuiltinModule', "const name = 'tressa'.split('').reverse().join('')\nprocess.getBuiltinModule(name).ok = () => {}\n"],
    ['an alias, then a property of it', "const a = require('assert')\nconst b = a; const s = b.strict; s.equal = () => {}\n"],
    ['a callback over a list of them', "const a = require('assert');\n[a, a.strict].forEach((o) => { o.equal = () => {} })\n"],
    ['a parameter of a named function', "const a = require('assert')\nfunction patch(o) { o.equal = () => {} }\npatch(a)\n"],
    ['a property of an object literal holding it', "const a = require('assert')\nconst o = { checks: a }; o.checks.ok = () => {}\n"],
    ['a function that returns it', "function get() { return require('assert') }\nget().equal = () => {}\n"],
    ['a dynamic import awaited', "const m = await import('node:assert')\nm.default.ok = () => {}\n"],
    ['a dynamic import through then', "import('node:assert').then((m) => {\n  m.default.ok = () => {}\n})\n"],
    ['TypeScript: import = require and a type assertion', "import assert = require('assert')\n;(assert as any)['strictEqual'] = 1\n", 'src/module.ts'],
    ['a with statement', "const a = require('assert')\nwith (a) { ok = () => {} }\n"],
    ['code in a string eval runs', "import assert from 'node:assert'\neval('assert.ok = () => {}')\n"],
  ])('%s', (_name, source, file = 'src/module.js') => {
    expect(flags(source, file)).toContain(ASSERT)
  })
})

describe('the other guarded values', () => {
  test.each([
    ['expect replaced on globalThis', 'globalThis.expect = () => ({ toBe() {} })\n', [`${FLAG.replacesExpect}:1`]],
    ['expect replaced by a computed global key', "const g = globalThis\ng['exp' + 'ect'] = {}\n", [`${FLAG.replacesExpect}:2`]],
    ['expect written through Object.assign(globalThis, …)', 'Object.assign(globalThis, { expect: () => {} })\n', [`${FLAG.replacesExpect}:1`]],
    ["Vitest's expect written", "import { expect } from 'vitest'\nexpect.soft = expect\n", [`${FLAG.replacesExpect}:2`]],
    ['expect.extend', "import { expect } from 'vitest'\n\nexpect.extend({ toBe: () => ({ pass: true }) })\n", [`${FLAG.extendsExpect}:3`]],
    ['expect.extend through the vitest namespace and an alias', "import * as v from 'vitest'\nconst { extend } = v.expect\nextend({})\n", [`${FLAG.extendsExpect}:3`]],
    ['expect.addEqualityTesters on the global', 'expect.addEqualityTesters([() => true])\n', [`${FLAG.extendsExpect}:1`]],
    ['chai.use', "import chai from 'chai'\nchai.use((c, u) => {})\n", [`${FLAG.extendsExpect}:2`]],
    ["chai's overwriteMethod", "import { util } from 'chai'\nutil.overwriteMethod(x, 'equal', () => () => {})\n", [`${FLAG.extendsExpect}:2`]],
    ["chai's Assertion prototype written", "import { Assertion } from 'chai'\nAssertion.prototype.assert = () => {}\n", [`${FLAG.replacesExpect}:2`]],
    ['node:test written', "import test from 'node:test'\ntest.skip = test\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ['a mock of node:assert', "import { mock } from 'node:test'\nmock.module('node:assert', {})\n", [`${FLAG.replacesAssert}:2`]],
    ['the module loader patched', "const Module = require('module')\nModule._load = () => ({})\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ["the loader reached through CommonJS's module", 'module.constructor.prototype.require = () => ({})\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['a loader hook registered', "import { register } from 'node:module'\nregister('data:text/javascript,')\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ['process.exitCode set to 0', 'process.exitCode = 0\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['process.exitCode defined', "Object.defineProperty(process, 'exitCode', { get: () => 0, set() {} })\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ["the runner's output replaced", 'process.stdout.write = () => true\n', [`${FLAG.monkeypatchesRunner}:1`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('exit handlers and exits', () => {
  test.each([
    ["process.on('exit')", "process.on('exit', () => {})\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['an exit listener through an alias and bind', "const p = process\nconst once = p.once.bind(p)\nonce('beforeExit', () => {})\n", [`${FLAG.monkeypatchesRunner}:3`]],
    ['a listener for an event the analysis cannot read', 'process.on(eventName, () => {})\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['process.exit while the module loads', 'export const x = 1\nprocess.exit(0)\n', [`${FLAG.processExit}:2`]],
    ['process.exit in a function called where it stands', 'if (x) {\n  (() => process.exit(0))()\n}\n', [`${FLAG.processExit}:2`]],
    ['process.exit in a function called where it stands by an optional call', '(() => process.exit(0))?.()\n', [`${FLAG.processExit}:1`]],
    ['process.exit through call', "process['exit'].call(process, 0)\n", [`${FLAG.processExit}:1`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('code from strings and modules by computed names', () => {
  test.each([
    ['eval of a string built at run time', 'eval(atob(payload))\n', [`${FLAG.evaluatesString}:1`]],
    ['new Function', 'new Function(code)()\n', [`${FLAG.evaluatesString}:1`]],
    ["the Function constructor reached through ''.constructor.constructor", "const F = ''.constructor.constructor\nF(code)()\n", [`${FLAG.evaluatesString}:2`]],
    ["an arrow's constructor", '(() => {}).constructor(code)()\n', [`${FLAG.evaluatesString}:1`]],
    ['vm.runInThisContext', "import vm from 'node:vm'\nvm.runInThisContext(code)\n", [`${FLAG.evaluatesString}:2`]],
    ['a string timer', "setTimeout('globalThis.' + name + ' = 1', 0)\n", [`${FLAG.evaluatesString}:1`]],
    ['a string the analysis can read is analysed as code, where it is called', "\nnew Function('globalThis.expect = null')()\n", [`${FLAG.replacesExpect}:2`]],
    ['require of a computed name', 'const m = require(name)\n', [`${FLAG.computedModule}:1`]],
    ['import() of a computed name', 'await import(`./${name}.js`)\n', [`${FLAG.computedModule}:1`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('reads of test paths and /proc', () => {
  test.each([
    ['a test file read', "import { readFileSync } from 'node:fs'\nconst t = readFileSync(new URL('./add.test.mjs', import.meta.url), 'utf8')\n", [`${FLAG.readsTestFiles}:2`]],
    ['test files listed by a pattern', "import fs from 'fs'\nconst tests = fs.readdirSync('.').filter((f) => /\\.test\\./.test(f))\n", [`${FLAG.readsTestFiles}:2`]],
    ['a test folder read through fs/promises', "const { readdir } = require('node:fs/promises')\nreaddir(dir + '/tests/')\n", [`${FLAG.readsTestFiles}:2`]],
    ['a test module loaded by the code under test', "import expected from '../test/fixtures.test.js'\n", [`${FLAG.readsTestFiles}:1`]],
    ["the parent's command line", "import { readFileSync } from 'node:fs'\nreadFileSync(`/proc/${process.ppid}/cmdline`)\n", [`${FLAG.readsProc}:2`]],
    ['/proc built by concatenation', "const f = '/pr' + 'oc/self/' + name\n", [`${FLAG.readsProc}:1`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('benign look-alikes are not flagged', () => {
  test.each([
    ['a local function named assert, given a property', "const assert = (c) => { if (!c) throw new Error('x') }\nassert.ok = assert\n"],
    ['a local object named expect, extended', 'const expect = { extend() {} }\nexpect.extend({})\nexpect.x = 1\n'],
    ['an ordinary module with a string mentioning test', "export const mode = process.env.NODE_ENV === 'test' ? 'test' : 'prod'\nprocess.env.DEBUG = '1'\n"],
    ['a CLI setting a failing exit code, and exiting inside a function', 'export function main() {\n  process.exitCode = 1\n  process.exit(2)\n}\n'],
    [
      'a data file read, a file named spec.ts imported',
      "import { readFileSync } from 'node:fs'\nimport { spec } from './spec.ts'\nexport const data = JSON.parse(readFileSync('data/rates.json', 'utf8'))\n",
    ],
    ['a test path named in a module that reads no files', "export const pattern = '**/*.test.js'\n"],
    ["Function('return this'), the global object polyfill", "export const root = Function('return this')()\n"],
    [
      'a listener for another event, and an assert never written',
      "import assert from 'node:assert'\nprocess.on('SIGTERM', () => {})\nassert.ok(true)\nconst copy = { ...assert }\n",
    ],
    ['a require of a plain module name', "const path = require('node:path')\nconst lib = require('./lib/' + 'money.js')\n"],
    ['a write to a property of an object merely holding assert', "import assert from 'node:assert'\nconst checks = { run: assert }\nchecks.extra = 1\n"],
    ['TSX', "import type { X } from './x'\nexport const C = (p: X) => <div>{p.a as string}</div>\n", 'src/c.tsx'],
    ['TypeScript with decorators and generics', 'class A<T> {\n  @dec() m(): T | undefined { return undefined }\n}\nexport const f = <T,>(x: T) => x\n', 'src/a.ts'],
    ['a Flow-typed .js file', '// @flow\nexport function f(x: number): string { return String(x) }\n'],
    ['sloppy-mode script syntax', 'var x = 010\nwith (Math) { y = max(1, 2) }\n'],
  ])('%s', (_name, source, file = 'src/module.js') => {
    expect(flags(source, file)).toEqual([])
  })
})

describe('a file the analysis cannot read', () => {
  test('a syntax error is flagged at its line', () => {
    expect(flags('export const x = 1\nconst y = [\nfunction (')).toEqual([`${FLAG.doesNotParse}:3`])
  })

  test('what it still understands of a file with a recoverable error is analysed too', () => {
    expect(flags("import assert from 'node:assert'\nassert.ok = () => {}\nlet a = 1; let a = 2\n")).toEqual([`${FLAG.doesNotParse}:3`, ASSERT])
  })

  test('nesting ten thousand deep is flagged, not a crash', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`
    const found = flags(deep)
    expect(found.length).toBe(1)
    expect(found[0]).toMatch(new RegExp(`^(?:${FLAG.doesNotParse}|${FLAG.notAnalysed}):`))
    expect(flags(`const a = require('assert')\nconst b = a${'.x'.repeat(5000)}\nb.y = 1\n`)).toEqual([])
  })
})
