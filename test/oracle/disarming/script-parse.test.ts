import { describe, expect, test } from 'vitest'
import { parseScript } from '../../../src/oracle/disarming/script-parse.ts'

/** How `text` parses as the file `file`: the program's source type (null: no tree) and the first error's line. */
function parsed(file: string, text: string): { sourceType: string | null; errorLine: number | null } {
  const { ast, errorLine } = parseScript(file, text)
  const program = ast?.program as { sourceType?: string } | undefined
  return { sourceType: program?.sourceType ?? null, errorLine }
}

describe('parseScript: a module, else a script, with the plugins the extension calls for', () => {
  test('a file both accept is a module, without errors', () => {
    expect(parsed('a.js', 'const x = 1\n')).toEqual({ sourceType: 'module', errorLine: null })
  })
  test('sloppy-mode code a module rejects is read as a script', () => {
    expect(parsed('a.js', 'with (o) {}\n')).toEqual({ sourceType: 'script', errorLine: null })
  })
  test.each([
    ['JSX', 'a.js', 'const e = <div />\n'],
    ['Flow', 'a.js', 'type T = {| a: number |}\n'],
    ['TypeScript', 'a.js', 'const y = a!.b\n'],
    ['TypeScript and JSX', 'a.js', 'const y = a!.b\nconst e = <div />\n'],
    ['Flow and JSX', 'a.js', 'type T = {| a: number |}\nconst e = <div />\n'],
    ['JSX', 'a.jsx', 'const e = <div />\n'],
    ['TypeScript without JSX (a type assertion)', 'a.ts', 'const y = <string>x\n'],
    ['TypeScript without JSX', 'a.mts', 'const y = <string>x\n'],
    ['TypeScript without JSX', 'a.cts', 'const y = <string>x\n'],
    ['TypeScript with JSX when without it fails', 'a.ts', 'const e = <div />\n'],
    ['legacy decorators', 'a.ts', '@dec class A { @m method() {} }\n'],
    ['legacy decorators and a type assertion', 'a.ts', '@dec class A {}\nconst y = <string>x\n'],
    ['TypeScript, JSX and legacy decorators', 'a.ts', '@dec class A {}\nconst y = a!.b\nconst e = <div />\n'],
    ['TypeScript, JSX and legacy decorators', 'a.tsx', '@dec class A {}\nconst e = <div>{x as any}</div>\n'],
  ])('%s in %s', (_, file, text) => {
    expect(parsed(file, text).errorLine).toBeNull()
  })
  test.each([
    ['a .tsx file is JSX: no type assertion', 'a.tsx', 'const y = <string>x\n'],
    ['a .js file has no decorators', 'a.js', '@dec class A {}\n'],
  ])('%s', (_, file, text) => {
    expect(parsed(file, text).errorLine).toBe(1)
  })
})

describe('parseScript: errors', () => {
  test('an error the parser recovers from leaves a tree and its line', () => {
    expect(parsed('a.js', 'x\nlet a = 1; let a = 2\n')).toEqual({ sourceType: 'module', errorLine: 2 })
  })
  test('the attempt with the fewest errors wins', () => {
    expect(parsed('a.js', '\nwith (o) {}\n\nlet let = 1\n')).toEqual({ sourceType: 'script', errorLine: 4 })
  })
  test('of attempts with as many errors, the first (the module) wins', () => {
    expect(parsed('a.js', '\nwith (o) {}\n\nconsole.log(import.meta.url)\n')).toEqual({ sourceType: 'module', errorLine: 2 })
  })
  test("when every attempt throws: no tree, and the first exception's line", () => {
    expect(parsed('a.js', 'ok()\n\n)(\n')).toEqual({ sourceType: null, errorLine: 3 })
  })
  test('an exception without a line (a file nested too deep for the stack) is at line 1', () => {
    expect(parsed('a.js', '[\n'.repeat(200_000))).toEqual({ sourceType: null, errorLine: 1 })
  })
})
