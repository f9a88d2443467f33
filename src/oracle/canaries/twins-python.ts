import { pick } from './family.ts'
import { pickPreferred, reshapedLiteral, type WrittenTwin } from './twins.ts'

/**
 * Twins for pytest files (see `twins.ts` for why): one of the file's own
 * `assert <call> == <literal>` lines, in a top-level test function without
 * parameters or a test method that takes only `self` (so without fixtures,
 * which may set up the state the call reads), written once more as a test
 * function of its own with the literal reshaped, before one of the file's
 * top-level tests. Read line by line, as pytest files are written (one
 * statement a line, four-space or tab indents); anything else is left
 * without a twin.
 */

/** Names Python gives every module: a twin may read them besides the file's own top-level bindings. */
const PY_GLOBALS = new Set(
  (
    'True False None and or not in is if else abs all any bool bytes chr dict divmod enumerate filter float frozenset hex int isinstance ' +
    'len list map max min oct ord pow range repr reversed round set sorted str sum tuple type zip'
  ).split(' '),
)
const STRING = /(?<![\w'"])([rRbBuU]{0,2})('[^'\\\n]*'|"[^"\\\n]*")/g
const LITERAL = String.raw`-?(?:\d+(?:\.\d+)?|'[^'\\\n]*'|"[^"\\\n]*")`
const ASSERT = new RegExp(String.raw`^([ \t]+)assert[ \t]+(.+?)[ \t]*==[ \t]*(${LITERAL})[ \t]*(?:#.*)?$`)
const TEST_DEF = /^def (test_\w*)\(\s*\)\s*(?:->\s*None\s*)?:\s*(?:#.*)?$/
const TEST_METHOD = /^([ \t]+)def (test_\w*)\(\s*self\s*\)\s*(?:->\s*None\s*)?:\s*(?:#.*)?$/
const TEST_CLASS = /^class (Test\w*)\s*(?:\([^)]*\))?\s*:\s*(?:#.*)?$/
/** What gives a test state a twin outside it would not get: fixtures asked for by name, set-up and tear-down hooks. */
const OWN_STATE = /usefixtures|@pytest\.fixture|\b(?:setup|teardown)/i
const STARTS_TEST = /^(?:async\s+)?def test_\w*\(|^class Test\w*[(:]/

/** The names an import binds: `import a.b` binds `a`, `import a as b` and `from m import a as b` bind `b`. */
function importedNames(list: string, whole: boolean): string[] {
  return list.split(',').map((part) => /\sas\s+(\w+)/.exec(part)?.[1] ?? (whole ? /\w+/.exec(part)?.[0] : part.trim()) ?? '')
}

/**
 * The names a statement binds (imports, definitions, assignments, loop and
 * `with … as` targets, `global`); `*` for a star import. Conservative: a
 * name that may be a target counts as bound. Exported for its tests.
 */
export function namesBoundBy(statement: string): string[] {
  const code = statement.replace(STRING, '0').replace(/#.*$/, '')
  const imported = /^\s*import\s+(.+)$/.exec(code)
  if (imported !== null) return importedNames(imported[1]!, true)
  const from = /^\s*from\s+\S+\s+import\s+\(?([^)]*)\)?/.exec(code)
  if (from !== null) return importedNames(from[1]!, false)
  const names = [...code.matchAll(/\b(?:async\s+def|def|class|as|global|nonlocal)\s+([A-Za-z_]\w*)/g)].map((match) => match[1]!)
  for (const loop of code.matchAll(/\bfor\s+(.+?)\s+in\b/g)) names.push(...[...loop[1]!.matchAll(/[A-Za-z_]\w*/g)].map((match) => match[0]))
  const target = /^\s*([\w\s,()[\]*.]+?)\s*(?::[^=]+)?(?:[-+*/%|&^@]|\/\/|\*\*|>>|<<)?=(?!=)/.exec(code)
  if (target !== null) names.push(...[...target[1]!.matchAll(/(?<![\w.])[A-Za-z_]\w*/g)].map((match) => match[0]))
  return names
}

/** The file's top-level statements: [line index, text with a parenthesised import joined onto one line]. */
function topLevel(lines: readonly string[]): Array<readonly [number, string]> {
  const out: Array<readonly [number, string]> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (!/^[A-Za-z_@]/.test(line)) continue
    // Comments out first: a parenthesis in one neither opens nor closes the import.
    let statement = line.replace(/#.*$/, '')
    if (/^from\s[^(]*\(/.test(statement)) {
      let j = i
      while (!statement.includes(')') && j + 1 < lines.length) statement += ` ${lines[++j]!.replace(/#.*$/, '')}`
    }
    out.push([i, statement])
  }
  return out
}

/**
 * The names `code` reads (strings removed, attributes and keyword arguments
 * left out), or null when it cannot be moved (a lambda, `await`, `yield`, a
 * walrus, a backslash, a quote left open: an f-string's quote is one, as `STRING`
 * takes no `f` prefix). Exported for its tests.
 */
export function namesRead(code: string): string[] | null {
  if (/\b(?:lambda|await|yield)\b|:=|\\/.test(code)) return null
  const bare = code.replace(STRING, ' 0 ')
  if (/['"]/.test(bare)) return null
  // A whole name (no backtracking into `ke` of `key=`), not a keyword argument's.
  return [...bare.matchAll(/(?<![\w.])([A-Za-z_]\w*)(?!\w)(?!\s*=(?!=))/g)].map((match) => match[1]!)
}

/** Brackets in `code` (outside its strings) all close, in order. Exported for its tests. */
export function bracketsBalanced(code: string): boolean {
  const open: string[] = []
  for (const c of code.replace(STRING, '0')) {
    if ('([{'.includes(c)) open.push(c)
    else if (')]}'.includes(c) && open.pop() !== { ')': '(', ']': '[', '}': '{' }[c]) return false
  }
  return open.length === 0
}

/**
 * A test's body: the name its report id ends with (`test_a`, `TestA::test_a`
 * for a method), its first body line's index, its end (exclusive), and the
 * indent its `def` stands at (a method's: the class's).
 */
type TestBody = readonly [string, number, number, string]

/** The lines after `def` at `from` that belong to its body: blank ones, and those indented deeper than `indent`. */
function bodyEnd(lines: readonly string[], from: number, indent: string): number {
  let end = from + 1
  while (end < lines.length && (lines[end]!.trim() === '' || (lines[end]!.startsWith(indent) && /^[ \t]/.test(lines[end]!.slice(indent.length))))) end++
  return end
}

/** Whether the lines just above `at` are decorators (at `indent`) that give the test state of its own. */
function decoratedWithState(lines: readonly string[], at: number, indent: string): boolean {
  for (let i = at - 1; i >= 0 && lines[i]!.startsWith(`${indent}@`); i--) if (OWN_STATE.test(lines[i]!)) return true
  return false
}

/**
 * The top-level test functions without parameters, and the `self`-only test
 * methods of top-level `Test…` classes, leaving out those whose decorators
 * ask for fixtures and every method of a class that has set-up, tear-down,
 * fixtures of its own or decorators that ask for them.
 */
function testBodies(lines: readonly string[]): TestBody[] {
  const bodies: TestBody[] = []
  for (let i = 0; i < lines.length; i++) {
    const name = TEST_DEF.exec(lines[i]!)?.[1]
    if (name !== undefined && !decoratedWithState(lines, i, '')) bodies.push([name, i + 1, bodyEnd(lines, i, ''), ''])
    const suite = TEST_CLASS.exec(lines[i]!)?.[1]
    if (suite === undefined) continue
    const end = bodyEnd(lines, i, '')
    if (decoratedWithState(lines, i, '') || lines.slice(i + 1, end).some((line) => OWN_STATE.test(line))) continue
    // Methods at the class's own indent only: a nested class's tests have ids of another form.
    const own = /^[ \t]+/.exec(lines.slice(i + 1, end).find((line) => line.trim() !== '') ?? '')?.[0]
    if (own === undefined) continue
    for (let j = i + 1; j < end; j++) {
      const method = TEST_METHOD.exec(lines[j]!)
      if (method === null || method[1] !== own || decoratedWithState(lines, j, own)) continue
      const [, indent, test] = method as unknown as [string, string, string]
      bodies.push([`${suite}::${test}`, j + 1, bodyEnd(lines, j, indent), indent])
    }
  }
  return bodies
}

/**
 * Writes a twin of one of the file's comparisons, named `name` (a `test_`
 * identifier), before one of its top-level tests. Null when no comparison
 * qualifies: `assert <actual> == <literal>` on a line of its own at the
 * test's own indent, in a test `testBodies` takes, the actual calling something and reading only the
 * file's top-level names and Python's builtins (none the test assigns), the
 * literal a number or a plain string `reshapedLiteral` can change. One in a
 * test named in `prefer` is drawn before others (`pickPreferred`).
 */
export function writePythonTwin(source: string, name: string, prefer: ReadonlySet<string> = new Set()): WrittenTwin | null {
  const lines = source.split('\n')
  const statements = topLevel(lines)
  const bound = new Set(statements.flatMap(([, statement]) => namesBoundBy(statement)))
  if (bound.has('*')) return null
  const sites: Array<{ code: string; test: string; indent: string }> = []
  for (const [test, first, end, outer] of testBodies(lines)) {
    const body = lines.slice(first, end)
    const indent = /^[ \t]+/.exec(body.find((line) => line.trim() !== '') ?? '')?.[0]
    if (indent === undefined) continue
    // What the test binds itself (conservatively: any name that may be a target), which a twin outside it would not see.
    const assigned = new Set(body.flatMap(namesBoundBy))
    for (const line of body) {
      const match = ASSERT.exec(line)
      if (match === null || match[1] !== indent) continue
      const [, , actual, literal] = match as unknown as [string, string, string, string]
      const names = namesRead(actual)
      if (names === null || actual.includes('==') || !bracketsBalanced(actual) || !/[\w)\]]\s*\(/.test(actual.replace(STRING, '0'))) continue
      if (names.some((read) => (!bound.has(read) && !PY_GLOBALS.has(read)) || assigned.has(read))) continue
      const negative = literal.startsWith('-')
      const reshaped = reshapedLiteral(negative ? literal.slice(1) : literal)
      if (reshaped === null) continue
      // At the top level, a method's line keeps its indent within the method.
      sites.push({ code: `assert ${actual} == ${negative ? '-' : ''}${reshaped}`, test, indent: indent.slice(outer.length) })
    }
  }
  // Before a top-level test, or the first of the decorators above it.
  const places = statements
    .filter(([, statement]) => STARTS_TEST.test(statement))
    .map(([i]) => {
      let at = i
      while (at > 0 && lines[at - 1]!.startsWith('@')) at--
      return at
    })
  if (sites.length === 0 || places.length === 0) return null
  // `prefer` holds the last parts of the tests' ids: a method's own name.
  const site = pickPreferred(sites, new Set(sites.filter((one) => prefer.has(one.test.split('::').pop()!)).map((one) => one.test)))
  const at = pick(places)
  let blank = 0
  while (at - blank - 1 >= 0 && lines[at - blank - 1]!.trim() === '') blank++
  const written = [`def ${name}():`, `${site.indent}${site.code}`, ...Array<string>(blank).fill('')]
  return { source: [...lines.slice(0, at), ...written, ...lines.slice(at)].join('\n'), method: '==', pairedWith: site.test }
}
