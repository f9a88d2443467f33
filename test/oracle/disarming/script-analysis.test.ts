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

describe('module names the analysis folds from string operations', () => {
  test.each([
    ['toLowerCase', "const a = require('ASSERT'.toLowerCase())\na.ok = 1\n"],
    ['trim', "const a = require('  assert '.trim())\na.ok = 1\n"],
    ['replace', "const a = require('axxert'.replace('xx', 'ss'))\na.ok = 1\n"],
    ['replaceAll', "const a = require('axsert'.replaceAll('x', 's'))\na.ok = 1\n"],
    ['concat', "const a = require('as'.concat('se', 'rt'))\na.ok = 1\n"],
    ['String.fromCharCode', 'const a = require(String.fromCharCode(97, 115, 115, 101, 114, 116))\na.ok = 1\n'],
    ['split then join', "const a = require('a,s,s,e,r,t'.split(',').join(''))\na.ok = 1\n"],
    ['a template with a folded part', "const a = require(`as${'se'}rt`)\na.ok = 1\n"],
  ])('%s', (_name, source) => {
    expect(flags(source)).toEqual([ASSERT])
  })

  test('a constant', () => {
    expect(flags("const name = 'assert'\nconst a = require(name)\na.ok = 1\n")).toEqual([`${FLAG.replacesAssert}:3`])
  })

  test.each([
    ['toUpperCase, which makes another name', "const a = require('assert'.toUpperCase())\na.ok = 1\n"],
    ["join without a separator, which joins with ','", "const a = require(['as', 'sert'].join())\na.ok = 1\n"],
  ])('%s is folded to that name, not to assert', (_name, source) => {
    expect(flags(source)).toEqual([])
  })
})

describe('the writers and the places a write can stand', () => {
  test.each([
    ['Reflect.deleteProperty', "const a = require('assert')\nReflect.deleteProperty(a, 'ok')\n"],
    ['Object.setPrototypeOf', "const a = require('assert')\nObject.setPrototypeOf(a, null)\n"],
    ['Reflect.setPrototypeOf', "const a = require('assert')\nReflect.setPrototypeOf(a, null)\n"],
    ['a for-in target', "const a = require('assert')\nfor (a.ok in {}) ;\n"],
    ['a for-of target', "const a = require('assert')\nfor (a.ok of []) ;\n"],
    ['an update', "const a = require('assert')\na.n++\n"],
    ['Reflect.get, then a write', "const a = require('assert')\nReflect.get(a, 'strict').equal = 1\n"],
  ])('%s', (_name, source) => {
    expect(flags(source)).toEqual([ASSERT])
  })

  test('a key held by a constant', () => {
    expect(flags("const a = require('assert')\nconst k = 'ok'\na[k] = 1\n")).toEqual([`${FLAG.replacesAssert}:3`])
  })
})

describe('values followed through expressions, patterns and functions', () => {
  test.each([
    ['a conditional', "const a = require('assert')\nconst b = x ? a : null\nb.ok = 1\n"],
    ['a logical or', "const a = require('assert')\nconst b = x || a\nb.ok = 1\n"],
    ['a sequence', "const a = require('assert')\nconst b = (0, a)\nb.ok = 1\n"],
    ['an array pattern', "const a = require('assert')\nconst [b] = [a]\nb.ok = 1\n"],
    ['a rest property', "const a = require('assert')\nconst { ...b } = a\nb.ok = 1\n"],
    ['a later assignment', "const a = require('assert')\nlet b\nb = a\nb.ok = 1\n"],
    ["an arrow's expression body", "const a = require('assert')\nconst f = () => a\nf().ok = 1\n"],
    ["a function expression's return", "const a = require('assert')\nconst f = function () { return a }\nf().ok = 1\n"],
    ['a computed key of a held object', "const a = require('assert')\nconst o = { ['x']: a }\no.x.ok = 1\n"],
    ['a numeric key of a held object', "const a = require('assert')\nconst o = { 1: a }\no[1].ok = 1\n"],
    ['a string key of a held object', "const a = require('assert')\nconst o = { 'q': a }\no.q.ok = 1\n"],
    ['a rest parameter', "const a = require('assert')\nfunction f(...[o]) { o.ok = 1 }\nf(a)\n"],
    ['a parameter with a default', "const a = require('assert')\nfunction f(o = 1) { o.ok = 1 }\nf(a)\n"],
    ["reduce's second parameter", "const a = require('assert');\n[a].reduce((acc, o) => { o.ok = 1 }, 0)\n"],
    ['the result of Object.setPrototypeOf', "const a = require('assert')\nconst b = Object.setPrototypeOf(a, {})\nb.ok = 1\n"],
  ])('%s', (_name, source) => {
    expect(flags(source).map((flag) => flag.slice(0, flag.lastIndexOf(':')))).toEqual([FLAG.replacesAssert])
  })

  test.each([
    ["reduce's accumulator, which holds the initial value", "const a = require('assert');\n[a].reduce((acc, o) => { acc.ok = 1 }, 0)\n"],
    ['a spread copy of assert', "const a = require('assert')\nconst o = { ...a }\no.ok = 1\n"],
    ['a parameter named assert of an uncalled function', 'function f(assert) { assert.ok = 1 }\n'],
    ['a caught error named assert', 'try {} catch (assert) { assert.ok = 1 }\n'],
    ['a spread argument', "const a = require('assert')\nfunction f(o) { o.ok = 1 }\nf(...[a])\n"],
    ['a private field', 'class A { #x = 1; m() { this.#x = 2 } }\n'],
  ])('%s is no write to assert', (_name, source) => {
    expect(flags(source)).toEqual([])
  })
})

describe("the runner's mocks, globals, loader and process", () => {
  test.each([
    ['vi.mock of vitest', "vi.mock('vitest')\n", [`${FLAG.replacesExpect}:1`]],
    ['vi.mock of node:test', "vi.mock('node:test')\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['vi.doMock of chai', "vi.doMock('chai')\n", [`${FLAG.replacesExpect}:1`]],
    ['vi.stubGlobal of expect', "vi.stubGlobal('expect', {})\n", [`${FLAG.replacesExpect}:1`]],
    ['module.registerHooks', "import m from 'node:module'\nm.registerHooks({})\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ['module.syncBuiltinESMExports', "import m from 'node:module'\nm.syncBuiltinESMExports()\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ['an uncaught exception capture callback', 'process.setUncaughtExceptionCaptureCallback(() => {})\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['process.abort', 'process.abort()\n', [`${FLAG.processExit}:1`]],
    ['process.kill', 'process.kill(1)\n', [`${FLAG.processExit}:1`]],
    ['process.reallyExit', 'process.reallyExit(1)\n', [`${FLAG.processExit}:1`]],
    ['process.exitCode set to a variable', 'process.exitCode = x\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ["require's cache written", 'require.cache.x = 1\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ["the parent's pid read", 'x = process.ppid\n', [`${FLAG.readsProc}:1`]],
    ['a namespace default of node:test written', "import * as t from 'node:test'\nt.default.skip = 1\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ['process.exitCode set to a failing number', 'process.exitCode = 2\n', []],
    ['an environment variable set', 'process.env.x = 1\n', []],
    ['require itself reassigned', 'require = 1\n', []],
    ['a function timer', 'setTimeout(fn, 0)\n', []],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('code from strings, nested', () => {
  test.each([
    ['new vm.Script', "import vm from 'node:vm'\nnew vm.Script(code)\n", [`${FLAG.evaluatesString}:2`]],
    ['a template timer', 'setInterval(`x${y}`)\n', [`${FLAG.evaluatesString}:1`]],
    ["Function's body, its last argument, analysed", "Function('a', 'b', 'globalThis.expect = 1')\n", [`${FLAG.replacesExpect}:1`]],
    ["vm's code, its first argument only", "import vm from 'node:vm'\nvm.runInNewContext('1', code)\n", []],
    ['an eval of code that does not parse', "eval('let a = 1; let a = 2')\n", [`${FLAG.evaluatesString}:1`]],
    ['three evals deep, read to the end', `eval('eval("eval(\\'x\\')")')\n`, []],
    ['four evals deep, past the depth read', `eval('eval("eval(\\'eval(\\\\"x\\\\")\\')")')\n`, [`${FLAG.evaluatesString}:1`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('test files read by a module that uses fs', () => {
  test.each([
    ['through a member of fs', "import fs from 'node:fs'\nfs.x\nconst p = 'a.test.js'\n", [`${FLAG.readsTestFiles}:3`]],
    ['through require of fs', "const p = 'a.test.js'\nrequire('node:fs')\n", [`${FLAG.readsTestFiles}:1`]],
    ['through import() of fs', "const p = 'a.test.js'\nimport('node:fs')\n", [`${FLAG.readsTestFiles}:1`]],
    ["through process.binding('fs')", "process.binding('fs')\nconst p = '/x/a.test.js'\n", [`${FLAG.readsTestFiles}:2`]],
    ['a test module re-exported', "export * from '../test/x.test.js'\n", [`${FLAG.readsTestFiles}:1`]],
    ['a test module re-exported by name', "export { a } from '../test/x.test.js'\n", [`${FLAG.readsTestFiles}:1`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('names declared in the file, or in the code around an eval, are not the globals', () => {
  test.each([
    ['a class named expect', 'class expect {}\nexpect.extend({})\n', []],
    ['an expect imported from a module of the project', "import { expect } from './mine.js'\nexpect.extend({})\n", []],
    ['a local expect used by an eval', "const expect = {}\neval('expect.extend({})')\n", []],
    ['a constant read by an eval', "const n = 'assert'\neval('require(n).ok = 1')\n", [`${FLAG.replacesAssert}:2`]],
    ['a name declared twice, so no constant', "var n = 'assert'\nvar n = 'path'\nrequire(n)\n", [`${FLAG.computedModule}:3`]],
    ['a named import by a string name', "import { 'strict' as s } from 'assert'\ns.ok = 1\n", [`${FLAG.replacesAssert}:2`]],
    ['a renamed destructured property', "const a = require('assert')\nconst { strict: s } = a\ns.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ['a computed destructured property', "const a = require('assert')\nconst { [k]: s } = a\ns.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    [
      'createRequire, its result called',
      "import { createRequire } from 'node:module'\nconst r = createRequire(import.meta.url)\nr('assert').ok = 1\n",
      [`${FLAG.replacesAssert}:3`],
    ],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('the Function constructor reached from any literal', () => {
  test.each([
    ['a number', '(1).constructor.constructor(code)\n'],
    ['an array', '[].constructor.constructor(code)\n'],
    ['an object', '({}).constructor.constructor(code)\n'],
    ['a boolean', 'true.constructor.constructor(code)\n'],
    ['a regular expression', '/x/.constructor.constructor(code)\n'],
    ['a template', '`a${b}`.constructor.constructor(code)\n'],
    ['a class', '(class {}).constructor(code)\n'],
    ['a function expression', '(function () {}).constructor(code)\n'],
    ["an async function's prototype", 'Object.getPrototypeOf(async function () {}).constructor(code)\n'],
  ])('%s', (_name, source) => {
    expect(flags(source)).toEqual([`${FLAG.evaluatesString}:1`])
  })
})

describe('calls through call and apply, and the rest of the runner', () => {
  test.each([
    ['an exit listener through call', "process.on.call(process, 'exit', () => {})\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['an exit listener through apply', "process.on.apply(process, ['exit', () => {}])\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['a listener through apply of arguments it cannot read', 'process.on.apply(process, args)\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['another event through call', "process.on.call(process, 'SIGINT', () => {})\n", []],
    ['another event through apply', "process.on.apply(process, ['SIGINT', () => {}])\n", []],
    ['an exit in a function never called here', 'function f() { process.exit(1) }\n', []],
    ["chai's util.addMethod", "import * as chai from 'chai'\nchai.util.addMethod(x, 'y', f)\n", [`${FLAG.extendsExpect}:2`]],
    ['expect.addSnapshotSerializer', 'expect.addSnapshotSerializer({})\n', [`${FLAG.extendsExpect}:1`]],
    ['module.register through require', "const m = require('module')\nm.register('x')\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ["another of module's functions", "const m = require('module')\nm.other('x')\n", []],
    ["the runner's stderr", 'process.stderr.write = 1\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ["process's title", "process.title = 'x'\n", []],
    ['process.exitCode set to zero in hex', 'process.exitCode = 0x0\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ["a property of process.exitCode's value", 'process.exitCode.x = 1\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['a global of a name it cannot read', 'globalThis[k] = 1\n', []],
    ['a timer given a subtraction', 'setTimeout(a - b)\n', []],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('TypeScript and Flow wrappers around a value, a target or a callee', () => {
  test.each([
    ['as', "import a = require('assert')\n;(a as any).ok = 1\n", 'src/m.ts'],
    ['satisfies', "import a = require('assert')\n;(a satisfies object).ok = 1\n", 'src/m.ts'],
    ['a non-null assertion', "import a = require('assert')\na!.ok = 1\n", 'src/m.ts'],
    ['an angle-bracket assertion', "import a = require('assert')\n;(<any>a).ok = 1\n", 'src/m.ts'],
    ['an instantiation expression', "import a = require('assert')\nconst b = a<string>\nb.x = 1\nb.ok = 1\n", 'src/m.ts'],
    ['a target under as', "import a = require('assert')\n;(a.ok as any) = 1\n", 'src/m.ts'],
    ['a target under a non-null assertion', "import a = require('assert')\na.ok! = 1\n", 'src/m.ts'],
    ['a callee under as', "import a = require('assert')\n;(((o) => { o.ok = 1 }) as any)(a)\n", 'src/m.ts'],
    ["a function with TypeScript's this parameter", "import a = require('assert')\nfunction f(this: any, o: any) { o.ok = 1 }\nf(a)\n", 'src/m.ts'],
    ["a callback with TypeScript's this parameter", "import a = require('assert');\n[a].forEach(function (this: any, o: any) { o.ok = 1 })\n", 'src/m.ts'],
    ['a Flow type cast', "// @flow\nconst a = require('assert')\n;((a: any)).ok = 1\n", 'src/m.js'],
  ])('%s', (_name, source, file) => {
    expect(flags(source, file).map((flag) => flag.slice(0, flag.lastIndexOf(':')))).toEqual([FLAG.replacesAssert])
  })
})

describe('writes through patterns, loops and callbacks', () => {
  test.each([
    ['a held object beside a method', "const a = require('assert')\nconst o = { m() {}, k: a }\no.k.ok = 1\n", 3],
    ['a destructured function of assert', "import assert from 'node:assert'\nconst { ok } = assert\nok.x = 1\n", 3],
    ['an array pattern with a hole', "import assert from 'node:assert'\nconst [, b] = [0, assert]\nb.x = 1\n", 3],
    ['a for-of declaration', "import assert from 'node:assert'\nfor (const o of [assert]) o.x = 1\n", 2],
    ['a for-of over an outer name', "import assert from 'node:assert'\nlet o\nfor (o of [assert]) o.x = 1\n", 3],
    ['a function expression as callback', "import assert from 'node:assert'\n;[assert].map(function (o) { o.x = 1 })\n", 2],
    ['a named function as callback', "import assert from 'node:assert'\nfunction patch(o) { o.x = 1 }\n;[assert].forEach(patch)\n", 2],
    ['a callback over a property of assert', "import assert from 'node:assert'\nassert.x.forEach((o) => { o.x = 1 })\n", 2],
    ['an array pattern target and its rest', "import assert from 'node:assert'\n;[assert.a, ...assert.b] = []\n", 2],
    ['an object pattern rest target', "import assert from 'node:assert'\n;({ ...assert.b } = {})\n", 2],
    ['an array pattern target with a default', "import assert from 'node:assert'\n;[assert.a = 1] = []\n", 2],
    ['a compound assignment', "import assert from 'node:assert'\nassert.a += 1\n", 2],
    ['a logical assignment that keeps the value', "import assert from 'node:assert'\nlet x = assert\nx ||= 1\nx.y = 1\n", 4],
    ['a chained assignment', "import assert from 'node:assert'\nlet x\nx = y = assert\nx.z = 1\n", 4],
  ])('%s', (_name, source, line) => {
    expect(flags(source)).toEqual([`${FLAG.replacesAssert}:${line}`])
  })

  test.each([
    ['a getter of a held object (not followed)', "const a = require('assert')\nconst o = { get k() { return a } }\no.k.ok = 1\n"],
    ['a shorthand property of another value', "const a = require('assert')\nconst ok = 1\nconst o = { ok }\no.ok.x = 1\n"],
    ['forEach without a callback', "import assert from 'node:assert'\n;[assert].forEach()\n"],
    ['a callback over a list without assert', "import assert from 'node:assert'\n;[1].forEach((o) => { o.x = 1 })\n"],
    ['a method that takes no callback of the values', "import assert from 'node:assert'\n;[assert].push((o) => { o.x = 1 })\n"],
    ['a call of a function read from assert', "import assert from 'node:assert'\nassert?.a.b()\n"],
  ])('%s', (_name, source) => {
    expect(flags(source)).toEqual([])
  })
})

describe('the value written to process.exitCode, by any writer', () => {
  test.each([
    ['Reflect.set of a failing code', "Reflect.set(process, 'exitCode', 1)\n", []],
    ['Reflect.set of 0', "Reflect.set(process, 'exitCode', 0)\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['Reflect.set without a value', "Reflect.set(process, 'exitCode')\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['Object.defineProperty, whose third argument is a descriptor', "Object.defineProperty(process, 'exitCode', 1)\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['Object.assign of a failing code', 'Object.assign(process, { exitCode: 1 })\n', []],
    ['Object.assign of a failing code by a computed key', "Object.assign(process, { ['exit' + 'Code']: 1 })\n", []],
    ['Object.assign of 0', 'Object.assign(process, { exitCode: 0 })\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['Object.defineProperties, whose values are descriptors', 'Object.defineProperties(process, { exitCode: 1 })\n', [`${FLAG.monkeypatchesRunner}:1`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('which keys a writer writes on process', () => {
  test.each([
    ['a spread source, any key', "Object.assign(process, { title: 'x' }, { ...x })\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['a source it cannot read, any key', 'Object.assign(process, x)\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['defineProperty without a key', 'Object.defineProperty(process)\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['defineProperty by a key it cannot read', 'Object.defineProperty(process, k, {})\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['assign without sources', 'Object.assign(process)\n', []],
    ['keys that are not the runner’s', 'Object.assign(process, { title: 1, env: 2 })\n', []],
    ['a target it does not know', 'Object.assign(notKnown, { exit: 1 })\n', []],
    ['Object.freeze, which writes nothing', 'Object.freeze(process)\n', []],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('/proc and test paths however the string is built', () => {
  test.each([
    ['a template starting with /proc/', 'const x = `/proc/${y}`\n', [`${FLAG.readsProc}:1`]],
    ['a concatenation ending in /proc', "const x = y + '/proc/self'\n", [`${FLAG.readsProc}:1`]],
    ['String.fromCharCode', 'const x = String.fromCharCode(47, 112, 114, 111, 99, 47)\n', [`${FLAG.readsProc}:1`]],
    ['a join', "const x = ['/pr', 'oc/'].join('')\n", [`${FLAG.readsProc}:1`]],
    ['a reversed string', "const x = 'corp/'.split('').reverse().join('')\n", [`${FLAG.readsProc}:1`]],
    ['toLowerCase', "const x = '/PROC/'.toLowerCase()\n", [`${FLAG.readsProc}:1`]],
    ['a template split by a part it cannot read', 'const x = `/pro${y}c/`\n', []],
    ['a join with a part it cannot read', "const x = ['/pr', y].join('')\n", []],
    ['a test pattern, in a module that reads files', "const x = /\\.spec\\./\nrequire('fs')\n", [`${FLAG.readsTestFiles}:1`]],
    ['a test folder, in a module that loads fs', "const x = 'tests/' + y\nimport('fs')\n", [`${FLAG.readsTestFiles}:1`]],
    ['the first of two test paths', "import { readFileSync } from 'fs'\nconst a = 'a.test.js'\nconst b = '/b.test.js'\n", [`${FLAG.readsTestFiles}:2`]],
    ['another pattern', "const x = /abc/\nrequire('fs')\n", []],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('every kind of declaration shadows the global expect', () => {
  test.each([
    ['a class method parameter', 'class C { m(expect) { expect.extend({}) } }\n', 'src/m.js'],
    ['a private class method parameter', 'class C { #m(expect) { expect.extend({}) } }\n', 'src/m.js'],
    ['an object method parameter', 'const o = { m(expect) { expect.extend({}) } }\n', 'src/m.js'],
    ['an arrow parameter', 'const f = (expect) => expect.extend({})\n', 'src/m.js'],
    ["a function expression's name", 'const f = function expect() { expect.extend({}) }\n', 'src/m.js'],
    ['a class expression', 'const C = class expect {}\nexpect.extend({})\n', 'src/m.js'],
    ['a catch parameter', 'try {} catch (expect) { expect.extend({}) }\n', 'src/m.js'],
    ['a default import of a project module', "import expect from './mine.js'\nexpect.extend({})\n", 'src/m.js'],
    ['a namespace import of a project module', "import * as expect from './mine.js'\nexpect.extend({})\n", 'src/m.js'],
    ['import = require of a project module', "import expect = require('./mine')\nexpect.extend({})\n", 'src/m.ts'],
    ['a let', 'let expect = {}\nexpect.extend({})\n', 'src/m.js'],
  ])('%s', (_name, source, file) => {
    expect(flags(source, file)).toEqual([])
  })

  test('the global expect itself is flagged', () => {
    expect(flags('expect.extend({})\n')).toEqual([`${FLAG.extendsExpect}:1`])
  })
})

describe('the bounds of the analysis: values a name holds, property paths, rounds of following', () => {
  const keys = (count: number) => Array.from({ length: count }, (_, i) => `process.k${i}`).join(', ')

  test.each([
    ['two values whose paths join to the same text are both kept', 'const b = x ? process.std.out : process.stdout\nb.write = 1\n', [`${FLAG.monkeypatchesRunner}:2`]],
    ['a 64th value is kept', `const [b] = [${keys(63)}, process.stdout]\nb.write = 1\n`, [`${FLAG.monkeypatchesRunner}:2`]],
    ['a 65th value is dropped', `const [b] = [${keys(64)}, process.stdout]\nb.write = 1\n`, []],
    ['a path of six properties is kept', 'const b = process.stdout.a.b.c.d.e\nb.x = 1\n', [`${FLAG.monkeypatchesRunner}:2`]],
    ['a path of seven is dropped', 'const b = process.stdout.a.b.c.d.e.f\nb.x = 1\n', []],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })

  // Each `var` takes the next one's value, which the one after it gets a round later: x<n> holds assert after n + 1 rounds.
  const chain = `${Array.from({ length: 9 }, (_, i) => `var x${9 - i} = x${8 - i}\n`).join('')}var x0 = require('assert')\n`

  test.each([
    ['a value that takes eight rounds to reach a name is followed', 'x7', [`${FLAG.replacesAssert}:11`]],
    ['one that takes nine is not (the rounds stop at eight)', 'x8', []],
  ])('%s', (_name, name, expected) => {
    expect(flags(`${chain}${name}.ok = 1\n`)).toEqual(expected)
  })
})

describe('constants and functions the declarations give', () => {
  test.each([
    ['a const declared again in a block is no constant', "const n = 'path'\n{ const n = 'assert' }\nrequire(n).ok = 1\n", [`${FLAG.computedModule}:3`]],
    ['a let is no constant', "let n = 'assert'\nn = 'path'\nrequire(n).ok = 1\n", [`${FLAG.computedModule}:3`]],
    ['a function declared with the name expect shadows the global', 'function expect() {}\nexpect.extend({})\n', []],
    ["a function expression's own name is not called from outside it", "const a = require('assert')\nconst f = function patch(o) { o.ok = 1 }\npatch(a)\n", []],
    ['an anonymous default-exported function is analysed', 'export default function (o) { o.ok = 1 }\nprocess.exit(0)\n', [`${FLAG.processExit}:2`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('values followed through every kind of binding and expression', () => {
  test.each([
    ['a callback of one parameter given to reduce, then a write', "const a = require('assert');\n[a].reduce((acc) => acc, 0)\na.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ['a call with fewer arguments than parameters', "const a = require('assert')\nfunction f(o, p) { o.ok = 1 }\nf(a)\n", [`${FLAG.replacesAssert}:2`]],
    ['a name given two values, the first kept', "let b = require('assert')\nb = process\nb.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ['a function with two results, the first kept', "function f() { if (x) return require('assert'); return process }\nf().ok = 1\n", [`${FLAG.replacesAssert}:2`]],
    ['a result found after the call that reads it', "const b = f()\nb.ok = 1\nfunction f() { return require('assert') }\n", [`${FLAG.replacesAssert}:2`]],
    [
      'a named import by a string name, a member of the module',
      "import { 'createRequire' as c } from 'node:module'\nc(import.meta.url)('assert').ok = 1\n",
      [`${FLAG.replacesAssert}:2`],
    ],
    ['a default value of a destructured name', "const { b = require('assert') } = {}\nb.ok = 1\n", [`${FLAG.replacesAssert}:2`]],
    ['an object literal assigned later, holding it', "const a = require('assert')\nlet o\no = { k: a }\no.k.ok = 1\n", [`${FLAG.replacesAssert}:4`]],
    ["reduceRight's second parameter", "const a = require('assert');\n[a].reduceRight((acc, o) => { o.ok = 1 }, 0)\n", [`${FLAG.replacesAssert}:2`]],
    ["reduceRight's accumulator, which holds the initial value", "const a = require('assert');\n[a].reduceRight((acc, o) => { acc.ok = 1 }, 0)\n", []],
    ['an optional member', "const a = require('assert')\nconst s = a?.strict\ns.equal = 1\n", [`${FLAG.replacesAssert}:3`]],
    ['an optional call of a function that returns it', "function get() { return require('assert') }\nconst b = get?.()\nb.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ['new of a function that returns it', "function F() { return require('assert') }\nconst b = new F()\nb.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ["a conditional's alternate", "const a = require('assert')\nconst b = x ? null : a\nb.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ['the left of a logical or', "const a = require('assert')\nconst b = a || x\nb.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ["a value read from an unknown object's constructor does not hide the global beside it", 'const g = x.constructor || globalThis\ng.expect = 1\n', [`${FLAG.replacesExpect}:2`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })

  test.each([
    ['a private field of process, in a class that declares it, is a key of its own', 'class A { #x = 1; m() { process.#x = 2 } }\n', 'src/m.js', []],
    ['TypeScript: import = a namespace, no module, loads nothing', 'import x = N.M\nx.ok = 1\n', 'src/m.ts', []],
    ["JSON's constructor is Object, not Function", 'JSON.constructor(code)\n', 'src/m.js', []],
    ["an object literal's constructor is Object, not Function", '({}).constructor(code)\n', 'src/m.js', []],
    ["process's constructor is Object, not Function", 'process.constructor(code)\n', 'src/m.js', []],
    ["a function's other members are not the Function constructor", '(function () {}).call(this)\n', 'src/m.js', []],
  ])('%s', (_name, source, file, expected) => {
    expect(flags(source, file)).toEqual(expected)
  })
})

describe('expressions followed 48 steps deep, no further', () => {
  // `process.stdout.a…a.x = 1`: the write's object is `steps` members deep, so `process` is read at that depth.
  const write = (steps: number) => `process.stdout${'.a'.repeat(steps - 1)}.x = 1\n`

  test.each([
    ['48 steps', write(48), [`${FLAG.monkeypatchesRunner}:1`]],
    ['49 steps', write(49), []],
    ['47 steps and an await, which is one', `(await process.stdout${'.a'.repeat(46)}).x = 1\n`, [`${FLAG.monkeypatchesRunner}:1`]],
    ['48 steps and an await', `(await process.stdout${'.a'.repeat(47)}).x = 1\n`, []],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('every step of folding, following and shaping counts toward the depth of 48', () => {
  const nest = (times: number, wrap: (inner: string) => string, base: string) => Array.from({ length: times }).reduce<string>((inner) => wrap(inner), base)
  const load = (name: string) => `require(${name}).ok = 1\n`
  const template = (inner: string) => `\`\${${inner}}\``
  const constants = (count: number) => `const n0 = 'assert'\n${Array.from({ length: count }, (_, i) => `const n${i + 1} = n${i}\n`).join('')}`

  // Each row: how to nest `times` steps, and the first number of steps past the depth (one fewer is still read).
  test.each<[string, (times: number) => string, number, string?]>([
    ["a left-nested '+'", (times) => load(`${"'' + ".repeat(times)}'assert'`), 49],
    ["a right-nested '+'", (times) => load(nest(times, (inner) => `'' + (${inner})`, "'assert'")), 49],
    ['templates in templates', (times) => load(nest(times, template, "'assert'")), 49],
    ['constants naming constants', (times) => `${constants(times)}${load(`n${times}`)}`, 48],
    ['constants read by an eval', (times) => `${constants(times)}eval('require(n${times}).ok = 1')\n`, 47],
    ['joins of joins', (times) => load(nest(times, (inner) => `[${inner}].join('')`, "'assert'")), 25],
    ["a join's separator", (times) => load(`['ass', 'ert'].join(${nest(times, template, "''")})`), 48],
    ['string methods on string methods', (times) => load(`'assert'${'.trim()'.repeat(times)}`), 49],
    ["concat's arguments", (times) => load(nest(times, (inner) => `''.concat(${inner})`, "'assert'")), 49],
    ['reverses of reverses', (times) => load(`'tressa'.split('')${'.reverse()'.repeat(2 * times + 1)}.join('')`), 23],
    ['splits of joins', (times) => load(`'assert'${".split('').join('')".repeat(times)}`), 25],
    ["a split's separator", (times) => load(`'as,sert'.split(${nest(times, template, "','")}).join('')`), 47],
    ['TypeScript wrappers', (times) => load(`'assert'${' as any'.repeat(times)}`), 49, 'src/m.ts'],
  ])('%s', (_name, make, past, file = 'src/m.js') => {
    const named = (source: string) => flags(source, file).map((flag) => flag.slice(0, flag.lastIndexOf(':')))
    expect(named(make(past - 1))).toEqual([FLAG.replacesAssert])
    expect(named(make(past))).toEqual([FLAG.computedModule])
  })

  test.each<[string, (times: number) => string, number, string]>([
    ['sequences', (times) => `const a = require('assert')\n;${nest(times, (inner) => `(0, ${inner})`, 'a')}.ok = 1\n`, 49, ASSERT],
    ['arrays in arrays', (times) => `const a = require('assert')\nconst [b] = ${nest(times, (inner) => `[${inner}]`, 'a')}\nb.ok = 1\n`, 49, `${FLAG.replacesAssert}:3`],
    ['binds of binds', (times) => `process.stdout${'.bind(x)'.repeat(times)}.write = 1\n`, 24, `${FLAG.monkeypatchesRunner}:1`],
    ['results of Object.assign', (times) => `${nest(times, (inner) => `Object.assign(${inner}, {})`, 'process.stdout')}.write = 1\n`, 48, `${FLAG.monkeypatchesRunner}:1`],
    ['results of Reflect.get', (times) => `${nest(times, (inner) => `Reflect.get(${inner}, 'stdout')`, 'process')}.write = 1\n`, 48, `${FLAG.monkeypatchesRunner}:1`],
    ['a /proc path shaped around a part it cannot read', (times) => `const x = '/pr' + ${nest(times, (inner) => `'' + (${inner})`, "'oc/' + y")}\n`, 48, `${FLAG.readsProc}:1`],
  ])('%s', (_name, make, past, found) => {
    expect(flags(make(past - 1))).toEqual([found])
    expect(flags(make(past))).toEqual([])
  })
})

describe('what a call gives, and what it does not', () => {
  test.each([
    ['the last of a sequence of three', "const a = require('assert')\nconst b = (0, 0, a)\nb.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ['a spread in an array', "const a = require('assert')\nconst [b] = [...[a]]\nb.ok = 1\n", [`${FLAG.replacesAssert}:3`]],
    ['a function without a result, called, then an exit', 'function f() {}\nconst b = f()\nprocess.exit(0)\n', [`${FLAG.processExit}:3`]],
    ['a bound method three properties deep', 'const w = process.stdout.write.bind(process.stdout)\nw.x = 1\n', [`${FLAG.monkeypatchesRunner}:2`]],
    ['require.resolve loads nothing', "require.resolve('assert').ok = 1\n", []],
    ["expect's result is no module", "expect('assert').ok = 1\n", []],
    ['createRequire of process is no require', "process.createRequire(u)('assert').ok = 1\n", []],
    ["another of module's functions gives no require", "require('module').other(u)('assert').ok = 1\n", []],
    ['a property of createRequire gives no require', "require('module').createRequire.x(u)('assert').ok = 1\n", []],
    ['getBuiltinModule of module loads nothing', "require('module').getBuiltinModule('assert').ok = 1\n", []],
    ["another of process's functions loads nothing", "process.other('assert').ok = 1\n", []],
    ['a property of getBuiltinModule loads nothing', "process.getBuiltinModule.x('assert').ok = 1\n", []],
    ['Object.assign gives its target', 'Object.assign(globalThis, {}).expect = 1\n', [`${FLAG.replacesExpect}:1`]],
    ['Object.defineProperty gives its target', "Object.defineProperty(process, 'title', {}).exit = 1\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['Reflect.setPrototypeOf is followed to its target', 'Reflect.setPrototypeOf(globalThis, p).expect = 1\n', [`${FLAG.replacesExpect}:1`]],
    ['Object.freeze gives nothing followed', 'Object.freeze(globalThis).expect = 1\n', []],
    ["Reflect.has's result is no target", "Reflect.has(globalThis, 'expect').expect = 1\n", []],
    ["a get of process's is no Reflect.get", "process.get(globalThis, 'expect').x = 1\n", []],
    ['Reflect.get of a key it reads', "Reflect.get(globalThis, 'expect').x = 1\n", [`${FLAG.replacesExpect}:1`]],
    ['Reflect.get without a key', 'Reflect.get(globalThis).x = 1\n', []],
    ["an array's constructor from Object.keys is no Function", 'Object.keys(x).constructor(code)\n', []],
    ["a call's result is not its receiver", 'const s = process.cwd()\ns.exit = 1\n', []],
    ['vi.mock of nothing', 'vi.mock()\n', []],
    ['a listener for no event', 'process.on()\n', [`${FLAG.monkeypatchesRunner}:1`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('module names it folds, and those it cannot', () => {
  test.each([
    ['a TypeScript cast of a name', "require('assert' as string).ok = 1\n", 'src/m.ts', [`${FLAG.replacesAssert}:1`]],
    ['a subtraction', "require('as' - 'sert').ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['a name joined to a part it cannot read', "require(dir + '/x.js')\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ["a property's value", 'require(config.name)\n', 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['a join by a separator it cannot read', "require(['as', 'sert'].join(x)).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['fromCharCode of another object', 'require(S.fromCharCode(97, 115, 115, 101, 114, 116)).ok = 1\n', 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['String.fromCodePoint, not folded', 'require(String.fromCodePoint(97, 115, 115, 101, 114, 116)).ok = 1\n', 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['fromCharCode of a code it cannot read', 'require(String.fromCharCode(97, x)).ok = 1\n', 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['concat on a string it cannot read', "require(x.concat('assert')).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['toLowerCase of a string it cannot read', 'require(x.toLowerCase()).ok = 1\n', 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['concat of a part it cannot read', "require('as'.concat(x)).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['replace with one argument', "require('a'.replace('a')).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['a string method it does not fold', "require('assert'.padEnd(6, ' ')).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['a reverse of a list it cannot read', "require([x].reverse().join('')).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['an array method that is not split', "require('as,sert'.splitAt(',').join('')).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['a split without a separator', "require('assert'.split().join('')).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['a split by a separator it cannot read', "require('assert'.split(x).join('')).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
    ['a split of a string it cannot read', "require(x.split('').join('')).ok = 1\n", 'src/m.js', [`${FLAG.computedModule}:1`]],
  ])('%s', (_name, source, file, expected) => {
    expect(flags(source, file)).toEqual(expected)
  })
})

describe('the shapes of paths, and the places writes and reads stand', () => {
  test.each([
    ['/proc split across a concatenation with a part it cannot read', "const x = '/pr' + ('oc/' + y)\n", [`${FLAG.readsProc}:1`]],
    ['a part it cannot read between /pr and oc/', "const x = '/pr' + y + 'oc/'\n", []],
    ['a subtraction inside the concatenation', "const x = '/pr' + ('oc/' - y)\n", []],
    ['process.exitCode added to', 'process.exitCode += 1\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['process.exitCode as a destructuring target', ';({ a: process.exitCode } = 1)\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['reads of assert under other unary operators', "const a = require('assert')\nif (!a.ok) throw 1\nvoid a.equal\ntypeof a.strict\n", []],
    ['fs re-exported, then a test path', "export * from 'node:fs'\nconst p = 'a.test.js'\n", [`${FLAG.readsTestFiles}:2`]],
    ['a project module imported beside a test path', "import x from './x.js'\nconst p = 'a.test.js'\n", []],
    ['a local name exported beside a test path', "const a = 1\nexport { a }\nconst p = 'a.test.js'\n", []],
    ["the parent's pid read optionally", 'x = process?.ppid\n', [`${FLAG.readsProc}:1`]],
    ['a property named ppid of process.env', 'x = process.env.ppid\n', []],
    ['a property named ppid of assert', "x = require('assert').ppid\n", []],
    ["process's own pid", 'x = process.pid\n', []],
    ['fs reached by an eval through the code around it', "const fs = require('fs')\neval(\"fs.x; const p = 'a.te' + 'st.js'\")\n", [`${FLAG.readsTestFiles}:2`]],
    ['a member of another module beside a test path', "const p = 'a.test.js'\nprocess.env.x\n", []],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('what each call and write of the runner flags', () => {
  test.each([
    ['a key of process it cannot read written', 'process[k] = 1\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ["the vitest namespace's default written", "import * as v from 'vitest'\nv.default = 1\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ["node:module's default written", "const m = require('module')\nm.default = 1\n", [`${FLAG.monkeypatchesRunner}:2`]],
    ['the global require replaced', 'globalThis.require = 1\n', []],
    ['process.exit replaced by a number', 'process.exit = 1\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['a call of another module beside a test path', "const p = 'a.test.js'\nprocess.cwd()\n", []],
    [
      'fs called by an eval through the code around it',
      "const { readdirSync } = require('fs')\neval(\"readdirSync('.'); const p = 'a.te' + 'st.js'\")\n",
      [`${FLAG.readsTestFiles}:2`],
    ],
    ['eval through call', 'eval.call(null, code)\n', [`${FLAG.evaluatesString}:1`]],
    ['eval through apply', 'eval.apply(null, [code])\n', [`${FLAG.evaluatesString}:1`]],
    ['an exit through apply without arguments', 'process.exit.apply(process)\n', [`${FLAG.processExit}:1`]],
    ['Reflect.has, which writes nothing', "Reflect.has(process, 'exit')\n", []],
    ['Object.keys, which writes nothing', 'Object.keys(process)\n', []],
    ["an assign of another module's", 'process.assign(process, { exit: 1 })\n', []],
    ["a set of another module's", "process.set(process, 'exit')\n", []],
    ['expect called and its matcher', 'expect(x).toBe(y)\n', []],
    ["an extend of another module's", 'process.extend({})\n', []],
    ["chai's expect called", "import chai from 'chai'\nchai.expect(1)\n", []],
    ["a use of another module's", 'process.use(x)\n', []],
    ['a mock of node:assert through test.mock.module', "import { test } from 'node:test'\ntest.mock.module('node:assert', {})\n", [`${FLAG.replacesAssert}:2`]],
    ['vi.module, which is no mock', "vi.module('node:assert')\n", []],
    ["another of node:test's mock functions", "import { mock } from 'node:test'\nmock.fn('node:assert')\n", []],
    ["a mock of another module's", "process.mock('node:assert')\n", []],
    ['vi.fn given a module name and a global name', "vi.fn('node:assert')\nvi.fn('expect')\n", []],
    ['a mock of @vitest/expect', "vi.mock('@vitest/expect')\n", [`${FLAG.replacesExpect}:1`]],
    ['a mock of a module that guards nothing', "vi.mock('lodash')\n", []],
    ["a stubGlobal of another module's", "process.stubGlobal('expect', 1)\n", []],
    ["another of eval's members", 'eval.toString(code)\n', []],
    ["eval's second argument, never run", "eval('1', code)\n", []],
    ["another of Function's members", 'Function.prototype.toString(code)\n', []],
    ["another of vm's functions", "import vm from 'node:vm'\nvm.isContext(code)\n", []],
    ["a vm compiler of another module's", 'process.runInThisContext(code)\n', []],
    ["a timer's second argument, never run", "setTimeout('1', delay)\n", []],
    ["a timer of another module's", "process.setTimeout('a' + b)\n", []],
    ['another global given a string', "String('a' + b)\n", []],
    ['a timer without arguments', 'setTimeout()\n', []],
    ['a timer given code it can read', "setTimeout('globalThis.expect = 1')\n", [`${FLAG.replacesExpect}:1`]],
    ['require.resolve of a computed name', 'require.resolve(name)\n', []],
    ['require of nothing', 'require()\n', []],
    ['a test module required', "require('./x.test.js')\n", [`${FLAG.readsTestFiles}:1`]],
    ['another module required beside a test path', "require('path')\nconst p = 'a.test.js'\n", []],
    ['getBuiltinModule of a computed name', 'process.getBuiltinModule(x)\n', [`${FLAG.computedModule}:1`]],
    ['process.binding of another module', "process.binding('os')\nconst p = '/x/a.test.js'\n", []],
    ["fs named to another of process's functions", "process.cwd('fs')\nconst p = '/x/a.test.js'\n", []],
    ["a register of another module's", "import fs from 'node:fs'\nfs.register('x')\n", []],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('which keys and values the writers write', () => {
  test.each([
    ["defineProperties of a key that is not the runner's", 'Object.defineProperties(process, { title: {} })\n', []],
    ['defineProperties without its object', 'Object.defineProperties(process)\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ['setPrototypeOf writes any key, whatever the prototype', 'Object.setPrototypeOf(process, 0)\n', [`${FLAG.monkeypatchesRunner}:1`]],
    ["Reflect.defineProperty's third argument, a descriptor", "Reflect.defineProperty(process, 'exitCode', 1)\n", [`${FLAG.monkeypatchesRunner}:1`]],
    ['a name held under a key that runs into the next name', "const a = require('assert')\nconst o = { kx: a }\nconst ok = {}\nok.x.y = 1\n", []],
    ['an array rest target', "import assert from 'node:assert'\n;[...assert.b] = []\n", [`${FLAG.replacesAssert}:2`]],
  ])('%s', (_name, source, expected) => {
    expect(flags(source)).toEqual(expected)
  })
})

describe('every binding pattern declares its names', () => {
  test.each([
    ['an object pattern', 'const { expect } = x\nexpect.extend({})\n', 'src/m.js'],
    ['an object rest', 'const { ...expect } = x\nexpect.extend({})\n', 'src/m.js'],
    ['an array pattern', 'const [expect] = x\nexpect.extend({})\n', 'src/m.js'],
    ['an array pattern with a default', 'const [expect = 1] = x\nexpect.extend({})\n', 'src/m.js'],
    ['an array rest', 'const [...expect] = x\nexpect.extend({})\n', 'src/m.js'],
    ['a TypeScript parameter property', 'class A {\n  constructor(private expect: any) { expect.extend({}) }\n}\n', 'src/m.ts'],
  ])('%s', (_name, source, file) => {
    expect(flags(source, file)).toEqual([])
  })
})

describe('an analysis that fails', () => {
  test('is flagged as not analysed, not a crash (String.fromCharCode of 300,000 codes overflows the stack)', () => {
    expect(flags(`const x = String.fromCharCode(${Array(300_000).fill('97').join(', ')})\n`)).toEqual([`${FLAG.notAnalysed}:null`])
  })
})
