import { child, children, isFunction, isNode, type Node, text, walk } from '../disarming/script-ast.ts'
import { parseScript } from '../disarming/script-parse.ts'
import { pick } from './family.ts'

/**
 * Twins against a forged account: code in the test process can rewrite what
 * the process reports (node --test's serialized events, Vitest's messages),
 * turning the failures its own results cause into passes. Family canaries
 * assert on literals the code never returns, so a forger that flips only the
 * failures about its own results leaves them alone. A twin is one of the
 * file's own comparisons (`assert.equal(mul(2, 3), 6)`, `expect(f(x)).toEqual([1, 2])`)
 * written once more among the file's tests, in the file's own words, with one
 * literal of the expected value changed to another of the same shape
 * (`6` → `4`, `'Hello, bob'` → `'Hello, bjb'`). It calls the code under test
 * and must fail: the fix's tests expect the original value, which the twin's
 * cannot equal. A forger that flips the failures about its results flips the
 * twin too; to spare it, it must know which of the two expected values is
 * the right one, which is what solving the task would take.
 */

/** A twin, written into the file's source. */
export interface WrittenTwin {
  /** The file's source with the twin test among its own tests. */
  readonly source: string
  /** The comparison it repeats (`equal`, `toEqual`, …). */
  readonly method: string
  /** The name of the real test whose comparison it repeats. */
  readonly pairedWith: string
}

const NODE_COMPARISONS = new Set(['equal', 'strictEqual', 'deepEqual', 'deepStrictEqual'])
const VITEST_COMPARISONS = new Set(['toBe', 'toEqual', 'toStrictEqual'])
const ASSERT_MODULES = new Set(['assert', 'node:assert', 'assert/strict', 'node:assert/strict'])
const TEST_MODULES = new Set(['node:test', 'test', 'vitest'])
const TEST_FUNCTIONS = new Set(['test', 'it'])
const SUITE_FUNCTIONS = new Set(['describe', 'suite'])
/** Globals a twin's arguments may name besides the file's top-level bindings. */
const GLOBALS = new Set([
  'undefined',
  'NaN',
  'Infinity',
  'Math',
  'JSON',
  'Number',
  'String',
  'Boolean',
  'Array',
  'Object',
  'Date',
  'BigInt',
  'Symbol',
  'Map',
  'Set',
  'Buffer',
  'RegExp',
  'Error',
  'URL',
  'parseInt',
  'parseFloat',
])
/** Nodes that make an argument depend on where it stands (or run later): such a comparison is not twinned. */
const UNMOVABLE = new Set(['ThisExpression', 'Super', 'AwaitExpression', 'YieldExpression', 'MetaProperty', 'JSXElement', 'JSXFragment', 'ClassExpression'])

/** What the file binds at its top level, and to which module's exports. */
interface Bindings {
  readonly all: Set<string>
  /** Local name → [module, imported name] (`default` for a default import or a whole `require`). */
  readonly imported: Map<string, readonly [string, string]>
}

/** An Identifier's name (Babel gives every Identifier one; a PrivateName, `#x`, has none). */
const nameOf = (identifier: Node) => identifier.name as string

function patternNames(pattern: Node | null, out: Set<string>): void {
  if (pattern === null) return
  if (pattern.type === 'Identifier') out.add(nameOf(pattern))
  else if (pattern.type === 'ObjectPattern') for (const property of children(pattern, 'properties')) patternNames(child(property, 'value') ?? child(property, 'argument'), out)
  else if (pattern.type === 'ArrayPattern') for (const element of children(pattern, 'elements')) patternNames(element, out)
  else if (pattern.type === 'AssignmentPattern') patternNames(child(pattern, 'left'), out)
  else if (pattern.type === 'RestElement') patternNames(child(pattern, 'argument'), out)
}

/** The module of `require('x')`, or null. */
function requiredModule(node: Node | null): string | null {
  if (node?.type !== 'CallExpression' || child(node, 'callee')?.type !== 'Identifier' || text(child(node, 'callee')!, 'name') !== 'require') return null
  const [argument] = children(node, 'arguments')
  return argument?.type === 'StringLiteral' ? text(argument, 'value') : null
}

function bindingsOf(program: Node): Bindings {
  const all = new Set<string>()
  const imported = new Map<string, readonly [string, string]>()
  for (const statement of children(program, 'body')) {
    if (statement.type === 'ImportDeclaration') {
      const module = child(statement, 'source')!.value as string
      for (const specifier of children(statement, 'specifiers')) {
        const local = nameOf(child(specifier, 'local')!)
        // `import { equal }` or `import { 'equal' as same }`.
        const importedNode = child(specifier, 'imported')
        all.add(local)
        imported.set(local, [module, specifier.type === 'ImportSpecifier' ? String(importedNode!.name ?? importedNode!.value) : 'default'])
      }
    } else if (statement.type === 'VariableDeclaration') {
      for (const declaration of children(statement, 'declarations')) {
        const id = child(declaration, 'id')!
        patternNames(id, all)
        const module = requiredModule(child(declaration, 'init'))
        if (module === null) continue
        if (id.type === 'Identifier') imported.set(nameOf(id), [module, 'default'])
        // An object pattern's properties (an array pattern has none).
        else
          for (const property of children(id, 'properties')) {
            const key = child(property, 'key')
            const value = child(property, 'value')
            if (key?.type === 'Identifier' && value?.type === 'Identifier') imported.set(nameOf(value), [module, nameOf(key)])
          }
      }
    } else if (statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') {
      patternNames(child(statement, 'id'), all)
    } else if ((statement.type === 'ExportNamedDeclaration' || statement.type === 'ExportDefaultDeclaration') && child(statement, 'declaration') !== null) {
      const declaration = child(statement, 'declaration')!
      if (declaration.type === 'VariableDeclaration') for (const d of children(declaration, 'declarations')) patternNames(child(d, 'id'), all)
      else patternNames(child(declaration, 'id'), all)
    }
  }
  return { all, imported }
}

/** An identifier an expression reads, and whether it stands as a shorthand property (`{ input }`). */
interface Read {
  readonly node: Node
  readonly shorthand: boolean
}

/** The identifiers an expression reads, or null when it cannot be moved (a function, `this`, `await`, …). */
function readsOf(root: Node): Read[] | null {
  const reads: Read[] = []
  const stack: Array<readonly [Node, boolean]> = [[root, false]]
  while (stack.length > 0) {
    const [node, shorthand] = stack.pop()!
    if (UNMOVABLE.has(node.type) || isFunction(node)) return null
    if (node.type === 'Identifier') {
      reads.push({ node, shorthand })
      continue
    }
    if (node.type.startsWith('TS')) {
      const expression = child(node, 'expression')
      if (expression !== null) stack.push([expression, false])
      continue
    }
    for (const [field, value] of Object.entries(node)) {
      const computed = node.computed === true
      if (!computed && field === 'property' && (node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression')) continue
      if (!computed && field === 'key' && node.type === 'ObjectProperty') continue
      for (const item of Array.isArray(value) ? value : [value]) if (isNode(item)) stack.push([item, node.shorthand === true])
    }
  }
  return reads
}

const CALLS = new Set(['CallExpression', 'NewExpression', 'OptionalCallExpression'])

function callsSomething(root: Node): boolean {
  return walk(root).some(({ node }) => CALLS.has(node.type))
}

const PLAIN_NUMBER = /^\d+(?:\.\d+)?$/
const CLASSES = ['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', '0123456789']

/**
 * Another literal of the same shape as `raw` (a number's source or a quoted
 * string's): one of its digits or letters changed to another of its class
 * (never a number's leading digit to 0), so a typo either way: nothing in
 * the two tells which was written first. Null for a literal it does not
 * reshape (escapes, exponents, hex, separators, an empty string, a string
 * with no letter or digit).
 */
export function reshapedLiteral(raw: string): string | null {
  const number = PLAIN_NUMBER.test(raw)
  const quote = raw[0]
  const quoted = (quote === "'" || quote === '"') && raw.at(-1) === quote && !raw.includes('\\')
  if (!number && !quoted) return null
  const chars = [...raw]
  // A string's quotes are in no class, so only what stands between them can change.
  const positions = chars.flatMap((c, i) => (CLASSES.some((set) => set.includes(c)) ? [i] : []))
  if (positions.length === 0) return null
  const at = pick(positions)
  const leading = number && at === 0 && /^\d\d/.test(raw)
  chars[at] = pick([...CLASSES.find((set) => set.includes(chars[at]!))!].filter((c) => c !== chars[at] && !(leading && c === '0')))
  return chars.join('')
}

/**
 * The literals of an expected value a twin may reshape: [start, end,
 * replacement] each. Only the value itself, a negated number, or a leaf of
 * array and object literals: there a different literal is a different value
 * (inside a call or an operation it need not be: `Math.max(1, 5)`).
 */
function reshapable(source: string, expected: Node): Array<readonly [number, number, string]> {
  const out: Array<readonly [number, number, string]> = []
  const stack: Node[] = [expected]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === 'NumericLiteral' || node.type === 'StringLiteral') {
      const [start, end] = [node.start as number, node.end as number]
      const reshaped = reshapedLiteral(source.slice(start, end))
      if (reshaped !== null) out.push([start, end, reshaped])
    } else if (node.type === 'ArrayExpression') stack.push(...children(node, 'elements'))
    else if (node.type === 'ObjectExpression') {
      for (const property of children(node, 'properties')) if (property.type === 'ObjectProperty') stack.push(child(property, 'value')!)
    } else if (node.type === 'UnaryExpression' && node.operator === '-') stack.push(child(node, 'argument')!)
  }
  return out
}

/**
 * One of `sites`, drawn among those in a test named in `prefer` when there
 * are any: a twin of a PASS_TO_PASS test's comparison shows only a forger
 * that flips every failure about its code, one of a FAIL_TO_PASS test's also
 * one that flips just the failures it must.
 */
export function pickPreferred<T extends { readonly test: string }>(sites: readonly T[], prefer: ReadonlySet<string>): T {
  const preferred = sites.filter((site) => prefer.has(site.test))
  return pick(preferred.length > 0 ? preferred : sites)
}

const slice = (source: string, node: Node) => source.slice(node.start as number, node.end as number)

/** One comparison a twin can repeat: its code with the expected value reshaped, and the real test it stands in. */
interface Site {
  readonly code: string
  readonly method: string
  readonly test: string
}

/**
 * A titled test call's extent and how its comparisons are moved out of it:
 * as they stand (a plain test), or with its parameters replaced by the
 * values of one row (`it.each([[…], …])(title, (a, b) => …)`), whose title
 * the row gives.
 */
interface TestExtent {
  readonly start: number
  readonly end: number
  readonly title: string
  readonly rows?: EachRows
}

/** An `each` test's parameters and rows: the literals each parameter takes, and the title the row's test gets. */
interface EachRows {
  readonly params: readonly string[]
  readonly rows: ReadonlyArray<{ readonly values: readonly Node[]; readonly title: string }>
}

/** The title of a test call through one of `tests` (a plain string, or a template without expressions), or null. */
function titleOf(call: Node, tests: ReadonlySet<string>): string | null {
  const callee = child(call, 'callee')!
  if (callee.type !== 'Identifier' || !tests.has(nameOf(callee))) return null
  return plainString(children(call, 'arguments')[0])
}

/** A string literal's value, or a template's without expressions; null for anything else. */
function plainString(node: Node | undefined): string | null {
  if (node?.type === 'StringLiteral') return text(node, 'value')
  // A template's parts: one more than its expressions (a string literal and other values have none).
  const quasis = node === undefined ? [] : children(node, 'quasis')
  return quasis.length === 1 ? (quasis[0]!.value as { cooked: string }).cooked : null
}

const ROW_LITERALS = new Set(['StringLiteral', 'NumericLiteral', 'BooleanLiteral', 'NullLiteral'])

/** A literal a row may hold (a negative number too), as the title's `%s`, `%d` and `%i` print it; null for others. */
function rowValue(node: Node): string | null {
  if (node.type === 'UnaryExpression' && node.operator === '-' && child(node, 'argument')!.type === 'NumericLiteral') return `-${String(child(node, 'argument')!.value)}`
  if (!ROW_LITERALS.has(node.type)) return null
  return node.type === 'NullLiteral' ? 'null' : String(node.value)
}

/**
 * `it.each(rows)(title, (a, b) => …)` through one of `tests`: its rows (arrays of literals, or single literals) and
 * each row's test title (`%s`, `%d` and `%i` filled in order, the only placeholders it takes). Null for anything else.
 */
function eachRowsOf(call: Node, tests: ReadonlySet<string>): { readonly title: string; readonly rows: EachRows } | null {
  const inner = child(call, 'callee')!
  const each = inner.type === 'CallExpression' ? child(inner, 'callee')! : null
  if (each?.type !== 'MemberExpression' || each.computed === true || nameOf(child(each, 'property')!) !== 'each') return null
  const object = child(each, 'object')!
  const [table, ...more] = children(inner, 'arguments')
  const [titleNode, body] = children(call, 'arguments')
  const title = plainString(titleNode)
  if (object.type !== 'Identifier' || !tests.has(nameOf(object)) || table?.type !== 'ArrayExpression' || more.length > 0 || title === null) return null
  if (body === undefined || !isFunction(body) || /%[^sdi]|\$/.test(title)) return null
  const params = children(body, 'params')
  if (params.some((param) => param.type !== 'Identifier')) return null
  const rows: Array<{ values: Node[]; title: string }> = []
  for (const row of children(table, 'elements')) {
    const values = row.type === 'ArrayExpression' ? children(row, 'elements') : [row]
    const printed = values.map(rowValue)
    if (printed.some((value) => value === null) || values.length < params.length) return null
    let next = 0
    let whole = true
    const filled = title.replace(/%[sdi]/g, (placeholder) => {
      const value = printed[next++] as string | undefined
      // `%d` and `%i` print a number their own way (`%i` of 1.5 is 1): only whole numbers print as written. A
      // placeholder past the row's values is left as it stands, which is no title a row gives.
      if (value === undefined || (placeholder !== '%s' && !/^-?\d+$/.test(value))) whole = false
      return value ?? placeholder
    })
    if (!whole) return null
    rows.push({ values, title: filled })
  }
  return rows.length === 0 ? null : { title, rows: { params: params.map(nameOf), rows } }
}

/** A comparison call taken apart: the method, its actual and expected values, and its code up to the expected value given the actual's. */
interface Comparison {
  readonly method: string
  readonly actual: Node
  readonly expected: Node
  readonly head: (actual: string) => string
}

/** `assert.equal(a, b)` through the assertion module's default binding (or its `strict`), or a named comparison. */
function nodeComparison(source: string, call: Node, bindings: Bindings): Comparison | null {
  const callee = child(call, 'callee')!
  const args = children(call, 'arguments')
  let method: string | undefined
  if (callee.type === 'MemberExpression' && callee.computed !== true && child(callee, 'object')!.type === 'Identifier') {
    const origin = bindings.imported.get(nameOf(child(callee, 'object')!))
    const name = nameOf(child(callee, 'property')!)
    if (origin !== undefined && ASSERT_MODULES.has(origin[0]) && (origin[1] === 'default' || origin[1] === 'strict') && NODE_COMPARISONS.has(name)) method = name
  } else if (callee.type === 'Identifier') {
    const origin = bindings.imported.get(nameOf(callee))
    if (origin !== undefined && ASSERT_MODULES.has(origin[0]) && NODE_COMPARISONS.has(origin[1])) method = origin[1]
  }
  if (method === undefined || args.length !== 2) return null
  const [actual, expected] = args as [Node, Node]
  return { method, actual, expected, head: (code) => `${slice(source, callee)}(${code}, ` }
}

/** `expect(a).toBe(b)` (or `toEqual`, `toStrictEqual`) through Vitest's `expect`, imported or global. */
function vitestComparison(source: string, call: Node, bindings: Bindings): Comparison | null {
  const callee = child(call, 'callee')!
  if (callee.type !== 'MemberExpression' || callee.computed === true) return null
  const method = nameOf(child(callee, 'property')!)
  const subject = child(callee, 'object')!
  const args = children(call, 'arguments')
  if (!VITEST_COMPARISONS.has(method) || subject.type !== 'CallExpression' || args.length !== 1) return null
  const expectCallee = child(subject, 'callee')!
  const subjectArgs = children(subject, 'arguments')
  if (expectCallee.type !== 'Identifier' || subjectArgs.length !== 1) return null
  const name = nameOf(expectCallee)
  const origin = bindings.imported.get(name)
  if (origin === undefined ? bindings.all.has(name) || name !== 'expect' : origin[0] !== 'vitest' || origin[1] !== 'expect') return null
  return { method, actual: subjectArgs[0]!, expected: args[0]!, head: (code) => `${slice(source, expectCallee)}(${code}).${method}(` }
}

/** `node`'s code with each parameter it reads replaced by its value's code; null when one stands as a shorthand property. */
function substituted(source: string, node: Node, reads: readonly Read[], values: ReadonlyMap<string, Node>): string | null {
  let code = slice(source, node)
  const start = node.start as number
  const replaced = reads.filter((read) => values.has(nameOf(read.node))).sort((a, b) => (b.node.start as number) - (a.node.start as number))
  for (const { node: read, shorthand } of replaced) {
    if (shorthand) return null
    code = `${code.slice(0, (read.start as number) - start)}${slice(source, values.get(nameOf(read))!)}${code.slice((read.end as number) - start)}`
  }
  return code
}

/**
 * The comparison `call` (in `test`) as twins: one, or one per row of an `each` test (the row gives the parameters'
 * values and the title paired with; the expected value is then a parameter, its row's literal reshaped, or reads
 * none). Empty when it is not one a twin can repeat.
 */
function sitesOf(source: string, call: Node, framework: 'node-test' | 'vitest', bindings: Bindings, test: TestExtent): Site[] {
  const comparison = framework === 'node-test' ? nodeComparison(source, call, bindings) : vitestComparison(source, call, bindings)
  if (comparison === null || !callsSomething(comparison.actual)) return []
  const rows = test.rows?.rows ?? [undefined]
  return rows.flatMap((row) => siteOf(source, comparison, bindings, test, row) ?? [])
}

/** One twin of `comparison`, with `row`'s values in place of the test's parameters. */
function siteOf(source: string, comparison: Comparison, bindings: Bindings, test: TestExtent, row: EachRows['rows'][number] | undefined): Site | null {
  const { method, actual, expected, head } = comparison
  const values = new Map(row === undefined ? [] : test.rows!.params.map((param, i) => [param, row.values[i]!] as const))
  const reads = [readsOf(actual), readsOf(expected)]
  if (reads.some((list) => list === null || list.some(({ node }) => !values.has(nameOf(node)) && !bindings.all.has(nameOf(node)) && !GLOBALS.has(nameOf(node))))) return null
  const actualCode = substituted(source, actual, reads[0]!, values)
  const parameter = expected.type === 'Identifier' ? values.get(nameOf(expected)) : undefined
  if (actualCode === null || (parameter === undefined && reads[1]!.some(({ node }) => values.has(nameOf(node))))) return null
  const literals = reshapable(source, parameter ?? expected)
  if (literals.length === 0) return null
  const [start, end, replacement] = pick(literals)
  const expectedNode = parameter ?? expected
  const expectedCode = `${source.slice(expectedNode.start as number, start)}${replacement}${source.slice(end, expectedNode.end as number)}`
  const code = `${head(actualCode)}${expectedCode})`
  if (code.includes('\n')) return null
  return { code, method, test: row?.title ?? test.title }
}

/** The callee's name of a call statement (`test(…)`, `describe(…)`, and `it` of `it.each(…)(…)`), or null. */
function calledName(statement: Node): string | null {
  if (statement.type !== 'ExpressionStatement') return null
  const expression = child(statement, 'expression')!
  let callee = expression.type === 'CallExpression' ? child(expression, 'callee')! : null
  if (callee?.type === 'CallExpression') {
    const each = child(callee, 'callee')!
    callee = each.type === 'MemberExpression' && each.computed !== true && nameOf(child(each, 'property')!) === 'each' ? child(each, 'object')! : null
  }
  return callee?.type === 'Identifier' ? nameOf(callee) : null
}

/** The name `wanted` (test / describe functions) is bound to in the file, or the global one for Vitest's globals. */
function testFunctionsOf(bindings: Bindings, framework: 'node-test' | 'vitest', wanted: ReadonlySet<string>): Set<string> {
  const names = new Set<string>()
  for (const [local, [module, name]] of bindings.imported) {
    if (!TEST_MODULES.has(module)) continue
    if (wanted.has(name) || (name === 'default' && module === 'node:test' && wanted.has('test'))) names.add(local)
  }
  if (framework === 'vitest' && ![...bindings.imported.values()].some(([module]) => module === 'vitest')) for (const name of wanted) if (!bindings.all.has(name)) names.add(name)
  return names
}

/** A place for a twin: the offset of the statement it stands before, its indent, the function it calls, the quote of its title, and its form. */
interface Place {
  readonly at: number
  readonly indent: string
  readonly callee: string
  readonly quote: string
  readonly oneLine: boolean
}

/** Where a twin test may stand: before one of the file's test or suite calls at the top level or one suite deep. */
function placesOf(source: string, program: Node, tests: Set<string>, suites: Set<string>): Place[] {
  const places: Place[] = []
  const consider = (statements: Node[]) => {
    for (const statement of statements) {
      const name = calledName(statement)
      if (name === null || (!tests.has(name) && !suites.has(name))) continue
      const at = statement.start as number
      const indent = source.slice(source.lastIndexOf('\n', at - 1) + 1, at)
      const title = children(child(statement, 'expression')!, 'arguments')[0]
      const quote = title === undefined ? '"' : source[title.start as number]!
      if (/^[ \t]*$/.test(indent)) places.push({ at, indent, callee: name, quote, oneLine: !slice(source, statement).includes('\n') })
      if (!suites.has(name)) continue
      const body = children(child(statement, 'expression')!, 'arguments').find((arg) => isFunction(arg))
      const block = body === undefined ? null : child(body, 'body')
      if (block?.type === 'BlockStatement') consider(children(block, 'body'))
    }
  }
  consider(children(program, 'body'))
  return places
}

/**
 * Writes a twin of one of the file's comparisons, named `name`, before one
 * of its own test or suite calls (drawn at random), through the file's own
 * test function. Null when the file has no comparison a twin can repeat (one
 * that calls something, reads only the file's top-level bindings and
 * globals, and expects a value with a literal in it), no place for it, or
 * does not parse. A comparison in one of the tests named in `prefer` (the
 * FAIL_TO_PASS tests: the ones a forger must flip) is drawn before others.
 */
export function writeTwin(file: string, source: string, framework: 'node-test' | 'vitest', name: string, prefer: ReadonlySet<string> = new Set()): WrittenTwin | null {
  const { ast } = parseScript(file, source)
  const program = ast === null ? null : (child(ast, 'program') ?? ast)
  if (program === null) return null
  const bindings = bindingsOf(program)
  const tests = testFunctionsOf(bindings, framework, TEST_FUNCTIONS)
  const places = placesOf(source, program, tests, testFunctionsOf(bindings, framework, SUITE_FUNCTIONS))
  if (places.length === 0) return null
  const sites: Site[] = []
  const extents: TestExtent[] = []
  // In source order, so a test call comes before the comparisons inside it.
  for (const { node } of walk(program)) {
    if (node.type !== 'CallExpression') continue
    const [start, end] = [node.start as number, node.end as number]
    const title = titleOf(node, tests)
    const each = title === null ? eachRowsOf(node, tests) : null
    if (title !== null) extents.push({ start, end, title })
    else if (each !== null) extents.push({ start, end, ...each })
    // The innermost titled test around the comparison (a comparison outside one is not twinned).
    const around = extents.filter((extent) => extent.start <= start && end <= extent.end).sort((a, b) => b.start - a.start)[0]
    if (around !== undefined) sites.push(...sitesOf(source, node, framework, bindings, around))
  }
  if (sites.length === 0) return null
  const site = pickPreferred(sites, prefer)
  const place = pick(places)
  const { indent } = place
  const title = place.quote === "'" ? `'${name.replace(/[\\']/g, '\\$&')}'` : JSON.stringify(name)
  // In the form of the statement it stands before: one line, or a block.
  const body = place.oneLine ? site.code : `{\n${indent}  ${site.code}\n${indent}}`
  // The test function the file calls there, else one it calls elsewhere.
  const called = places.map((p) => p.callee).filter((callee) => tests.has(callee))
  const test = tests.has(place.callee) ? place.callee : pick(called.length > 0 ? called : [...tests])
  // Followed by what stands before the place (a blank line between tests stays one).
  const gap = /\s*$/.exec(source.slice(0, place.at))![0]
  const written = `${test}(${title}, () => ${body})${gap.includes('\n') ? gap : `\n${indent}`}`
  return { source: `${source.slice(0, place.at)}${written}${source.slice(place.at)}`, method: site.method, pairedWith: site.test }
}
