import { randomInt } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { closing, splitArgs } from './call-args.ts'
import { pick } from './family.ts'
import type { CanaryFramework } from './framework.ts'
import type { Canary } from './lay.ts'
import { canaryNames } from './names.ts'

/**
 * Decoys against special-casing: code that reads the test file at the path it
 * knows and returns exactly what that file expects. When a fix's test file
 * holds plain assertions (`assert.equal(f(x), 6)`, `expect(f(x)).toBe('a')`,
 * `assert f(x) == 6`), the real file moves to a sibling with a plausible name
 * and the known path holds a decoy: the same imports, and each of those
 * assertions once more with the expected value replaced by a fresh one. A
 * decoy test must fail (the code cannot honestly return a value drawn for this
 * run); code that returns what the file at the known path expects makes it
 * pass, and the real test fail.
 */

/** Where one real test file went, and the decoy canaries left at its path. */
export interface Decoy {
  /** The fix's path (now the decoy). */
  readonly file: string
  /** Where the real tests went. */
  readonly movedTo: string
  readonly canaries: Canary[]
  /** The moved real file imports the decoy, so its tests run in the same process (node --test, Vitest); pytest is given it as a file. */
  readonly imported: boolean
}

const NUMBER = /^-?\d+(?:\.\d+)?$/
const LITERAL = String.raw`(-?\d+(?:\.\d+)?|'[^'\\\n]*'|"[^"\\\n]*")`
const PY_ASSERT = new RegExp(String.raw`^\s*(assert\s+(.+?)\s*==\s*)${LITERAL}(\s*)$`)
const JS_IMPORTS = /^import\s[\s\S]*?from\s*['"][^'"\n]+['"];?[ \t]*$|^import\s*['"][^'"\n]+['"];?[ \t]*$|^(?:const|let|var)\s[^\n]*=\s*require\([^\n]*\)[^\n]*$/gm
const PY_IMPORTS = /^from\s+\S+\s+import\s+\([^)]*\)|^from\s+\S+\s+import\s[^\n]+|^import\s[^\n]+/gm

/**
 * A literal of the same kind as `literal`, different from it: a number of four or five digits drawn again while it
 * equals `literal`, or a word with a number. `draw` is `randomInt` (exported, and the draw a parameter, so its
 * redraw can be tested).
 */
export function otherLiteral(literal: string, draw: (min: number, max: number) => number = randomInt): string {
  if (NUMBER.test(literal)) {
    let value = String(draw(1000, 99_999))
    while (value === literal) value = String(draw(1000, 99_999))
    return value
  }
  const quote = literal[0]!
  return `${quote}${pick(['ember', 'quartz', 'saffron', 'tundra', 'willow', 'zephyr'])}-${randomInt(100, 999)}${quote}`
}

const WHOLE_LITERAL = new RegExp(`^${LITERAL}$`)

/** `assert.equal(actual, literal)` and `expect(actual).toBe(literal)` anywhere in JavaScript, each with a fresh literal. */
function javascriptTwins(source: string, withExpect: boolean): string[] {
  const out: string[] = []
  for (const match of source.matchAll(/\b([\w$]+\.(?:equal|strictEqual|deepEqual|deepStrictEqual))\(/g)) {
    const open = match.index + match[1]!.length
    const end = closing(source, open)
    if (end < 0) continue
    const args = splitArgs(source.slice(open + 1, end - 1))
    if (args.length === 2 && WHOLE_LITERAL.test(args[1]!) && !args[0]!.includes('\n')) out.push(`${match[1]}(${args[0]}, ${otherLiteral(args[1]!)})`)
  }
  if (!withExpect) return out
  for (const match of source.matchAll(/\bexpect\(/g)) {
    const open = match.index + 'expect'.length
    const end = closing(source, open)
    if (end < 0) continue
    const rest = /^\.(toBe|toEqual|toStrictEqual)\(/.exec(source.slice(end))
    if (rest === null) continue
    const matcherOpen = end + rest[0].length - 1
    const matcherEnd = closing(source, matcherOpen)
    const expected = matcherEnd < 0 ? '' : source.slice(matcherOpen + 1, matcherEnd - 1).trim()
    const actual = source.slice(open + 1, end - 1)
    if (WHOLE_LITERAL.test(expected) && !actual.includes('\n')) out.push(`expect(${actual}).${rest[1]}(${otherLiteral(expected)})`)
  }
  return out
}

/** The assertions a decoy repeats: each plain assertion of the file with its expected value replaced. */
function twinAssertions(framework: CanaryFramework, source: string): string[] {
  if (framework !== 'pytest') return [...new Set(javascriptTwins(source, framework === 'vitest'))]
  const out: string[] = []
  for (const line of source.split('\n')) {
    const match = PY_ASSERT.exec(line)
    if (match !== null) out.push(`${match[1]}${otherLiteral(match[3]!)}${match[4]}`.trim())
  }
  return [...new Set(out)]
}

/** A sibling of `file` with the same naming convention (so the runner's include globs still match it). */
function siblingName(file: string, word: string): string {
  const dir = path.posix.dirname(file)
  const base = path.posix.basename(file)
  let name: string
  if (base.endsWith('.py')) {
    const stem = base.slice(0, -3)
    name = stem.endsWith('_test') ? `${stem.slice(0, -5)}_${word}_test.py` : `${stem}_${word}.py`
  } else {
    const dot = base.indexOf('.')
    name = dot < 0 ? `${base}-${word}` : `${base.slice(0, dot)}-${word}${base.slice(dot)}`
  }
  return dir === '.' ? name : `${dir}/${name}`
}

function isModule(file: string, source: string): boolean {
  if (/\.(?:mjs|mts|tsx?)$/.test(file)) return true
  if (/\.(?:cjs|cts)$/.test(file)) return false
  return /^\s*(?:import\s[^(]|import\{|export\s)/m.test(source)
}

function decoySource(framework: CanaryFramework, file: string, source: string, named: ReadonlyArray<{ name: string; code: string }>): string {
  const imports = source.match(framework === 'pytest' ? PY_IMPORTS : JS_IMPORTS) ?? []
  if (framework === 'pytest') return `${imports.join('\n')}\n\n${named.map(({ name, code }) => `\ndef ${name}():\n    ${code}\n`).join('\n')}`
  const lines = [...imports]
  let testName = pick(['it', 'test'])
  if (framework === 'node-test') {
    testName = pick(['check', 'scenario', 'example', 'behaves'])
    lines.push(isModule(file, source) ? `import { test as ${testName} } from 'node:test'` : `const { test: ${testName} } = require('node:test')`)
  } else if (/from\s*['"]vitest['"]/.test(source)) {
    testName = pick(['check', 'scenario', 'example', 'behaves'])
    lines.push(`import { ${pick(['it', 'test'])} as ${testName} } from 'vitest'`)
  }
  for (const { name, code } of named) lines.push(`${testName}(${JSON.stringify(name)}, () => {\n  ${code}\n})`)
  return `${lines.join('\n')}\n`
}

/**
 * Moves each of `testFiles` that holds plain assertions to a sibling and
 * writes its decoy in its place. Returns the decoys (files without such
 * assertions stay where they are).
 */
export async function layDecoys(copy: string, framework: CanaryFramework, testFiles: readonly string[], realNames: readonly string[], taken: Set<string>): Promise<Decoy[]> {
  const decoys: Decoy[] = []
  for (const file of testFiles) {
    const source = await readFile(path.join(copy, file), 'utf8')
    // A moved file would miss its snapshot files.
    const twins = /snapshot/i.test(source) ? [] : twinAssertions(framework, source)
    if (twins.length === 0) continue
    let movedTo = siblingName(file, pick(['cases', 'behaviour', 'more', 'edge', 'extra', 'basics', 'spec', 'unit']))
    while (testFiles.includes(movedTo)) movedTo = siblingName(file, `part${randomInt(2, 99)}`)
    const names = canaryNames(realNames, twins.length, framework === 'pytest' ? 'identifier' : 'words', taken)
    const named = twins.map((code, i) => ({ name: names[i]!, code }))
    // One process fewer: the real file loads the decoy first (node --test runs each file it is given in a process of its own).
    const imported = framework !== 'pytest'
    const specifier = `./${path.posix.basename(file)}`
    const load = isModule(file, source) ? `import '${specifier}'\n` : `require('${specifier}')\n`
    await writeFile(path.join(copy, movedTo), imported ? `${load}${source}` : source)
    await writeFile(path.join(copy, file), decoySource(framework, file, source, named))
    decoys.push({ file, movedTo, imported, canaries: named.map(({ name }) => ({ file, name, kind: 'must-fail', method: 'decoy of a real assertion' })) })
  }
  return decoys
}

/** Ids of a report (or stream) with every moved file's path put back to the fix's, so they compare with FAIL_TO_PASS and PASS_TO_PASS. */
export function withFixPaths<T>(tests: ReadonlyMap<string, T>, decoys: readonly Decoy[]): Map<string, T> {
  if (decoys.length === 0) return new Map(tests)
  const out = new Map<string, T>()
  for (const [id, status] of tests) {
    const decoy = decoys.find((d) => id.startsWith(`${d.movedTo}::`) || id === d.movedTo)
    out.set(decoy === undefined ? id : `${decoy.file}${id.slice(decoy.movedTo.length)}`, status)
  }
  return out
}
