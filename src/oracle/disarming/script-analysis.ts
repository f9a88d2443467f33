import { FLAG, type Finding } from './flags.ts'
import { isProcPath, isTestPath, isTestPattern } from './paths.ts'
import { child, children, isFunction, lineOf, type Node, text, type Visited, walk } from './script-ast.ts'
import { parseScript } from './script-parse.ts'
import { ANY_KEY, guardedModule, type KnownValue, known, loadedModule, member } from './script-values.ts'

/**
 * The JavaScript/TypeScript analysis: which values of the file stand for an
 * assertion library, the test runner, the module loader or `process`
 * (through imports, `require`, `createRequire`, `process.getBuiltinModule`,
 * aliases, destructuring, function parameters and results, containers,
 * computed keys it can read), then what the file does to them: writes of any
 * syntax (`=`, `Object.assign`, `Object.defineProperty(ies)`, `Reflect.set`,
 * `delete`, `with`), `expect.extend`/`chai.use`, exit handlers, code compiled
 * from strings (a string it can read is analysed as code in place), modules
 * loaded by a name it cannot read, and reads of test paths or `/proc`. The
 * analysis is flow-insensitive and over-approximates: a flag is advice, the
 * canaries decide.
 */

const MAX_DEPTH = 48
const MAX_ROUNDS = 8
const MAX_EVAL_DEPTH = 3
/** Values one name or one function's result holds at most, and the longest property path followed (`chai.Assertion.prototype.x` is 3). */
const MAX_VALUES = 64
const MAX_PATH = 6

const WRAPPERS = new Set([
  'AwaitExpression',
  'TSAsExpression',
  'TSSatisfiesExpression',
  'TSNonNullExpression',
  'TSTypeAssertion',
  'TSInstantiationExpression',
  'ParenthesizedExpression',
  'TypeCastExpression',
])
const CALLS = new Set(['CallExpression', 'OptionalCallExpression', 'NewExpression'])
const MEMBERS = new Set(['MemberExpression', 'OptionalMemberExpression'])
/** Array and promise methods whose callback gets the receiver's values (first parameter; `reduce`'s second). */
const CALLBACK_METHODS = new Set(['forEach', 'map', 'flatMap', 'filter', 'find', 'findLast', 'some', 'every', 'then', 'reduce', 'reduceRight'])
const EXPECT_EXTENSIONS = new Set(['extend', 'addEqualityTesters', 'addSnapshotSerializer'])
const CHAI_EXTENSIONS = new Set(['use', 'addMethod', 'overwriteMethod', 'addProperty', 'overwriteProperty', 'addChainableMethod', 'overwriteChainableMethod'])
const PROCESS_RUNNER_KEYS = new Set([
  'exit',
  'reallyExit',
  'abort',
  'kill',
  'emit',
  'on',
  'once',
  'addListener',
  'prependListener',
  'prependOnceListener',
  'stdout',
  'stderr',
  'binding',
  '_rawDebug',
  'exitCode',
  ANY_KEY,
])
const EXIT_EVENTS = new Set(['exit', 'beforeExit', 'uncaughtException', 'unhandledRejection'])
const LISTENERS = new Set(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener'])
const EXITS = new Set(['exit', 'reallyExit', 'abort', 'kill'])
const OBJECT_WRITERS = new Set(['assign', 'defineProperty', 'defineProperties', 'setPrototypeOf'])
const REFLECT_WRITERS = new Set(['set', 'defineProperty', 'deleteProperty', 'setPrototypeOf'])
const VM_COMPILERS = new Set(['runInThisContext', 'runInNewContext', 'runInContext', 'compileFunction', 'Script', 'SourceTextModule'])
const STRING_TIMERS = new Set(['setTimeout', 'setInterval', 'setImmediate'])
/** Free names kept as `global` values: timers that take strings, and constructors whose `constructor` is Function. */
const FOLLOWED_GLOBALS = new Set([...STRING_TIMERS, 'String', 'Number', 'Boolean', 'RegExp', 'Array', 'Symbol', 'Promise', 'Error', 'Map', 'Set', 'Date'])
const LITERAL_CONSTRUCTORS: ReadonlyMap<string, string> = new Map([
  ['StringLiteral', 'String'],
  ['TemplateLiteral', 'String'],
  ['NumericLiteral', 'Number'],
  ['BooleanLiteral', 'Boolean'],
  ['RegExpLiteral', 'RegExp'],
  ['ArrayExpression', 'Array'],
  ['ObjectExpression', 'Object'],
])

const keyOf = (value: KnownValue) => `${value.root}\u0000${value.path.join('\u0000')}`

/** A set of values, added to without duplicates, of `MAX_VALUES` at most; `add` says whether it grew. */
class Values {
  readonly #byKey = new Map<string, KnownValue>()
  add(values: readonly KnownValue[]): boolean {
    let grew = false
    for (const value of values) {
      const key = keyOf(value)
      if (this.#byKey.has(key) || this.#byKey.size >= MAX_VALUES || value.path.length > MAX_PATH) continue
      this.#byKey.set(key, value)
      grew = true
    }
    return grew
  }
  get list(): KnownValue[] {
    return [...this.#byKey.values()]
  }
}

/**
 * Analyses one file's text; returns every finding (several per flag possible), `does not parse` at the
 * parser's first error, or `not analysed` when the analysis itself failed on it.
 */
export function analyseScript(file: string, source: string): Finding[] {
  try {
    return new ScriptAnalysis(file, source, 0, null).findings
  } catch {
    return [{ name: FLAG.notAnalysed, line: null }]
  }
}

class ScriptAnalysis {
  readonly findings: Finding[] = []
  readonly #outer: ScriptAnalysis | null
  readonly #evalDepth: number
  readonly #declared = new Set<string>()
  readonly #bindings = new Map<string, Values>()
  readonly #constants = new Map<string, Node>()
  readonly #functions = new Map<string, Node[]>()
  readonly #returns = new Map<Node, Values>()
  #nodes: Visited[] = []
  #grew = false
  #usesFs = false
  #testPathLine: number | null = null

  constructor(file: string, source: string, evalDepth: number, outer: ScriptAnalysis | null) {
    this.#outer = outer
    this.#evalDepth = evalDepth
    const parsed = parseScript(file, source)
    if (parsed.errorLine !== null) this.findings.push({ name: FLAG.doesNotParse, line: parsed.errorLine })
    if (parsed.ast === null) return
    this.#nodes = walk(parsed.ast)
    this.#declare()
    for (let round = 0; round < MAX_ROUNDS; round++) {
      this.#grew = false
      for (const visited of this.#nodes) this.#propagate(visited)
      if (!this.#grew) break
    }
    for (const visited of this.#nodes) this.#flag(visited)
    if (this.#testPathLine !== null && this.#usesFs) this.#found(FLAG.readsTestFiles, this.#testPathLine)
  }

  #found(name: string, line: number): undefined {
    this.findings.push({ name, line })
  }

  // Names declared anywhere in the file (a free name is a global), named functions, and constants.
  #declare(): void {
    const declarations = new Map<string, number>()
    const declare = (pattern: Node | null) => {
      for (const name of patternNames(pattern)) {
        this.#declared.add(name)
        declarations.set(name, (declarations.get(name) ?? 0) + 1)
      }
    }
    for (const { node } of this.#nodes) {
      switch (node.type) {
        case 'VariableDeclaration':
          for (const declarator of children(node, 'declarations')) {
            declare(child(declarator, 'id'))
            const id = child(declarator, 'id')
            const init = child(declarator, 'init')
            if (id?.type !== 'Identifier' || init === null) continue
            if (node.kind === 'const') this.#constants.set(text(id, 'name')!, init)
            if (isFunction(init)) this.#addFunction(text(id, 'name')!, init)
          }
          break
        case 'FunctionDeclaration':
        case 'FunctionExpression':
        case 'ArrowFunctionExpression':
        case 'ObjectMethod':
        case 'ClassMethod':
        case 'ClassPrivateMethod':
          for (const param of children(node, 'params')) declare(param)
          if (node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression') declare(child(node, 'id'))
          if (node.type === 'FunctionDeclaration' && child(node, 'id') !== null) this.#addFunction(text(child(node, 'id')!, 'name')!, node)
          break
        case 'ClassDeclaration':
        case 'ClassExpression':
        case 'TSImportEqualsDeclaration':
          declare(child(node, 'id'))
          break
        case 'ImportSpecifier':
        case 'ImportDefaultSpecifier':
        case 'ImportNamespaceSpecifier':
          declare(child(node, 'local'))
          break
        case 'CatchClause':
          declare(child(node, 'param'))
          break
      }
    }
    for (const [name, count] of declarations) if (count > 1) this.#constants.delete(name)
  }

  #addFunction(name: string, node: Node): void {
    this.#functions.set(name, [...(this.#functions.get(name) ?? []), node])
  }

  #isDeclared(name: string): boolean {
    return this.#declared.has(name) || (this.#outer !== null && this.#outer.#isDeclared(name))
  }

  #bound(name: string): KnownValue[] {
    return [...(this.#bindings.get(name)?.list ?? []), ...(this.#outer === null ? [] : this.#outer.#bound(name))]
  }

  #bind(pattern: Node | null, values: readonly KnownValue[]): void {
    if (pattern === null || values.length === 0) return
    switch (pattern.type) {
      case 'Identifier': {
        const name = text(pattern, 'name')!
        let bound = this.#bindings.get(name)
        if (bound === undefined) this.#bindings.set(name, (bound = new Values()))
        if (bound.add(values)) this.#grew = true
        return
      }
      case 'ObjectPattern':
        for (const property of children(pattern, 'properties')) {
          if (property.type === 'RestElement') this.#bind(child(property, 'argument'), values)
          else
            this.#bind(
              child(property, 'value'),
              values.map((value) => member(value, this.#propertyKey(property))),
            )
        }
        return
      case 'ArrayPattern':
        for (const element of children(pattern, 'elements')) this.#bind(element, values)
        return
      case 'AssignmentPattern':
        this.#bind(child(pattern, 'left'), values)
        return
      case 'RestElement':
        this.#bind(child(pattern, 'argument'), values)
        return
      case 'TSParameterProperty':
        this.#bind(child(pattern, 'parameter'), values)
        return
    }
  }

  // One round of following values: imports, declarations, assignments, loops, arguments into parameters, results.
  #propagate({ node, owner }: Visited): void {
    switch (node.type) {
      case 'ImportDeclaration': {
        const loaded = loadedModule(text(child(node, 'source')!, 'value') ?? '')
        if (loaded === null) return
        for (const specifier of children(node, 'specifiers')) {
          const imported = child(specifier, 'imported')
          const name = imported === null ? null : (text(imported, 'name') ?? text(imported, 'value'))
          this.#bind(child(specifier, 'local'), [specifier.type === 'ImportSpecifier' && name !== null ? member(loaded, name) : loaded])
        }
        return
      }
      case 'TSImportEqualsDeclaration': {
        const reference = child(node, 'moduleReference')
        const source = reference?.type === 'TSExternalModuleReference' ? child(reference, 'expression') : null
        const loaded = source === null ? null : loadedModule(text(source, 'value') ?? '')
        if (loaded !== null) this.#bind(child(node, 'id'), [loaded])
        return
      }
      case 'VariableDeclarator':
        this.#bind(child(node, 'id'), this.#resolve(child(node, 'init')))
        this.#bindHeld(child(node, 'id'), child(node, 'init'))
        return
      case 'AssignmentExpression':
      case 'AssignmentPattern':
        this.#bind(child(node, 'left'), this.#resolve(child(node, 'right')))
        this.#bindHeld(child(node, 'left'), child(node, 'right'))
        return
      case 'ForOfStatement': {
        const left = child(node, 'left')
        this.#bind(left?.type === 'VariableDeclaration' ? child(children(left, 'declarations')[0] ?? left, 'id') : left, this.#resolve(child(node, 'right')))
        return
      }
      case 'ReturnStatement':
        if (owner !== null) this.#addReturn(owner, this.#resolve(child(node, 'argument')))
        return
      case 'ArrowFunctionExpression':
        if (child(node, 'body')?.type !== 'BlockStatement') this.#addReturn(node, this.#resolve(child(node, 'body')))
        return
    }
    if (!CALLS.has(node.type)) return
    const callee = child(node, 'callee')
    const args = children(node, 'arguments')
    for (const fn of this.#calledFunctions(callee)) {
      parametersOf(fn).forEach((param, i) => {
        if (args[i] !== undefined && args[i]!.type !== 'SpreadElement') this.#bind(param, this.#resolve(args[i]!))
      })
    }
    if (callee !== null && MEMBERS.has(callee.type)) {
      const method = this.#memberKey(callee)
      const receiver = this.#resolve(child(callee, 'object'))
      if (!CALLBACK_METHODS.has(method) || receiver.length === 0) return
      const index = method === 'reduce' || method === 'reduceRight' ? 1 : 0
      for (const fn of this.#calledFunctions(args[0] ?? null)) this.#bind(parametersOf(fn)[index] ?? null, receiver)
    }
  }

  // `const o = { a: assert }`: `o.a` holds assert (`o` itself does not: a write to `o.x` writes no assertion).
  #bindHeld(id: Node | null, init: Node | null): void {
    if (id?.type !== 'Identifier' || init?.type !== 'ObjectExpression') return
    for (const property of children(init, 'properties')) {
      if (property.type !== 'ObjectProperty') continue
      this.#bind({ type: 'Identifier', name: heldName(text(id, 'name')!, this.#propertyKey(property)) }, this.#resolve(child(property, 'value')))
    }
  }

  #addReturn(fn: Node, values: readonly KnownValue[]): void {
    if (values.length === 0) return
    let returned = this.#returns.get(fn)
    if (returned === undefined) this.#returns.set(fn, (returned = new Values()))
    if (returned.add(values)) this.#grew = true
  }

  /** The functions a callee or callback names: an inline function, or a named one of this file. */
  #calledFunctions(node: Node | null): Node[] {
    if (node === null) return []
    if (isFunction(node)) return [node]
    if (WRAPPERS.has(node.type)) return this.#calledFunctions(inner(node))
    if (node.type === 'Identifier') return this.#functions.get(text(node, 'name')!) ?? []
    return []
  }

  #propertyKey(property: Node): string {
    const key = child(property, 'key')
    if (key === null) return ANY_KEY
    if (property.computed === true) return this.#fold(key) ?? ANY_KEY
    return text(key, 'name') ?? text(key, 'value') ?? (key.type === 'NumericLiteral' ? String(key.value) : ANY_KEY)
  }

  #memberKey(node: Node): string {
    const property = child(node, 'property')
    if (property === null) return ANY_KEY
    if (node.computed === true) return this.#fold(property) ?? ANY_KEY
    if (property.type === 'PrivateName') return `#${text(child(property, 'id') ?? property, 'name') ?? ''}`
    return text(property, 'name') ?? ANY_KEY
  }

  /** The known values an expression may evaluate to. */
  #resolve(node: Node | null, depth = 0): KnownValue[] {
    if (node === null || depth > MAX_DEPTH) return []
    const next = (field: string) => this.#resolve(child(node, field), depth + 1)
    if (WRAPPERS.has(node.type)) return this.#resolve(inner(node), depth + 1)
    switch (node.type) {
      case 'Identifier': {
        const name = text(node, 'name')!
        const global = this.#isDeclared(name) ? null : known('global', [name])
        // A free name the analysis has no use for (`JSON`, `undefined`) is not followed.
        const followed = global !== null && (global.root !== 'global' || global.path.length === 0 || FOLLOWED_GLOBALS.has(name))
        return [...this.#bound(name), ...(followed ? [global] : [])]
      }
      case 'MemberExpression':
      case 'OptionalMemberExpression': {
        const key = this.#memberKey(node)
        const object = child(node, 'object')
        const values = next('object').map((value) => member(value, key))
        if (object?.type === 'Identifier') values.push(...this.#bound(heldName(text(object, 'name')!, key)))
        if (key === 'constructor' && object !== null) {
          // `(() => {}).constructor`, `''.constructor.constructor`: the Function constructor reached from a literal.
          if (isFunction(object) || object.type === 'ClassExpression') values.push(known('Function', []))
          const literal = LITERAL_CONSTRUCTORS.get(object.type)
          if (literal !== undefined) values.push(known('global', [literal]))
        }
        return values
      }
      case 'CallExpression':
      case 'OptionalCallExpression':
      case 'NewExpression':
        return this.#callResult(node, depth)
      case 'ImportExpression':
        return this.#load(child(node, 'source'))
      case 'ConditionalExpression':
        return [...next('consequent'), ...next('alternate')]
      case 'LogicalExpression':
        return [...next('left'), ...next('right')]
      case 'AssignmentExpression':
        return next('right')
      case 'SequenceExpression':
        return this.#resolve(children(node, 'expressions').at(-1) ?? null, depth + 1)
      case 'SpreadElement':
        return next('argument')
      case 'ArrayExpression':
        return children(node, 'elements').flatMap((element) => this.#resolve(element, depth + 1))
      default:
        return []
    }
  }

  #callResult(node: Node, depth: number): KnownValue[] {
    const callee = child(node, 'callee')
    const args = children(node, 'arguments')
    if (callee?.type === 'Import') return this.#load(args[0] ?? null)
    const results: KnownValue[] = []
    for (const fn of this.#calledFunctions(callee)) results.push(...(this.#returns.get(fn)?.list ?? []))
    for (const value of this.#resolve(callee, depth + 1)) {
      const [first, second] = value.path
      const last = value.path.at(-1)
      if (value.root === 'require' && first === undefined) results.push(...this.#load(args[0] ?? null))
      else if (value.root === 'module' && first === 'createRequire' && second === undefined) results.push(known('require', []))
      else if (value.root === 'process' && first === 'getBuiltinModule' && second === undefined) results.push(...this.#load(args[0] ?? null))
      else if ((value.root === 'Object' && OBJECT_WRITERS.has(first ?? '')) || (value.root === 'Reflect' && first === 'setPrototypeOf'))
        results.push(...this.#resolve(args[0] ?? null, depth + 1))
      else if (value.root === 'Reflect' && first === 'get' && second === undefined) {
        const key = args[1] === undefined ? ANY_KEY : (this.#fold(args[1]) ?? ANY_KEY)
        results.push(...this.#resolve(args[0] ?? null, depth + 1).map((target) => member(target, key)))
      } else if (value.root === 'Object' && first === 'getPrototypeOf') results.push(known('global', ['Object', 'getPrototypeOf()']))
      else if (last === 'bind') results.push(known(value.root, value.path.slice(0, -1)))
    }
    return results
  }

  #load(specifier: Node | null): KnownValue[] {
    const name = specifier === null ? null : this.#fold(specifier)
    const loaded = name === null ? null : loadedModule(name)
    return loaded === null ? [] : [loaded]
  }

  /** The string an expression always evaluates to, when the analysis can read it. */
  #fold(node: Node | null, depth = 0): string | null {
    if (node === null || depth > MAX_DEPTH) return null
    if (WRAPPERS.has(node.type)) return this.#fold(inner(node), depth + 1)
    switch (node.type) {
      case 'StringLiteral':
        return text(node, 'value')
      case 'NumericLiteral':
        return String(node.value)
      case 'TemplateLiteral': {
        const quasis = children(node, 'quasis').map((quasi) => (quasi.value as { cooked?: string | null } | undefined)?.cooked ?? null)
        const parts = children(node, 'expressions').map((expression) => this.#fold(expression, depth + 1))
        if (quasis.includes(null) || parts.includes(null)) return null
        return quasis.map((quasi, i) => quasi! + (parts[i] ?? '')).join('')
      }
      case 'BinaryExpression': {
        if (node.operator !== '+') return null
        const left = this.#fold(child(node, 'left'), depth + 1)
        const right = left === null ? null : this.#fold(child(node, 'right'), depth + 1)
        return left === null || right === null ? null : left + right
      }
      case 'Identifier': {
        const constant = this.#constants.get(text(node, 'name')!) ?? null
        if (constant !== null) return this.#fold(constant, depth + 1)
        return this.#outer === null ? null : this.#outer.#fold(node, depth + 1)
      }
      case 'CallExpression':
        return this.#foldCall(node, depth)
      default:
        return null
    }
  }

  #foldCall(node: Node, depth: number): string | null {
    const callee = child(node, 'callee')
    const args = children(node, 'arguments')
    if (callee === null || !MEMBERS.has(callee.type)) return null
    const method = this.#memberKey(callee)
    const object = child(callee, 'object')
    if (method === 'join') {
      const parts = this.#foldArray(object, depth + 1)
      const separator = args[0] === undefined ? ',' : this.#fold(args[0], depth + 1)
      return parts === null || separator === null ? null : parts.join(separator)
    }
    if (method === 'fromCharCode' && object?.type === 'Identifier' && text(object, 'name') === 'String') {
      const codes = args.map((arg) => (arg.type === 'NumericLiteral' ? Number(arg.value) : null))
      return codes.includes(null) ? null : String.fromCharCode(...(codes as number[]))
    }
    const base = this.#fold(object, depth + 1)
    if (base === null) return null
    const strings = args.map((arg) => this.#fold(arg, depth + 1))
    if (strings.includes(null)) return null
    if (method === 'concat') return base + strings.join('')
    if (method === 'toLowerCase') return base.toLowerCase()
    if (method === 'toUpperCase') return base.toUpperCase()
    if (method === 'trim') return base.trim()
    if (method === 'replace' || method === 'replaceAll') return strings.length === 2 ? base[method](strings[0]!, strings[1]!) : null
    return null
  }

  #foldArray(node: Node | null, depth: number): string[] | null {
    if (node === null || depth > MAX_DEPTH) return null
    if (node.type === 'ArrayExpression') {
      const parts = children(node, 'elements').map((element) => this.#fold(element, depth + 1))
      return parts.includes(null) ? null : (parts as string[])
    }
    if (node.type !== 'CallExpression') return null
    const callee = child(node, 'callee')
    if (callee === null || !MEMBERS.has(callee.type)) return null
    const method = this.#memberKey(callee)
    if (method === 'reverse') return this.#foldArray(child(callee, 'object'), depth + 1)?.reverse() ?? null
    if (method !== 'split') return null
    const base = this.#fold(child(callee, 'object'), depth + 1)
    const arg = children(node, 'arguments')[0]
    const separator = arg === undefined ? null : this.#fold(arg, depth + 1)
    return base === null || separator === null ? null : base.split(separator)
  }

  /** A string as far as the analysis can build it, `\0` for any part it cannot (for the read flags). */
  #shape(node: Node | null, depth = 0): string {
    if (node === null || depth > MAX_DEPTH) return '\u0000'
    const folded = this.#fold(node, depth)
    if (folded !== null) return folded
    if (node.type === 'TemplateLiteral') {
      return children(node, 'quasis')
        .map((quasi) => (quasi.value as { raw?: string } | undefined)?.raw ?? '')
        .join('\u0000')
    }
    if (node.type === 'BinaryExpression' && node.operator === '+') return this.#shape(child(node, 'left'), depth + 1) + this.#shape(child(node, 'right'), depth + 1)
    return '\u0000'
  }

  // The flags: what the file does to the values it holds.
  #flag({ node, inFunction }: Visited): void {
    const line = lineOf(node)
    switch (node.type) {
      case 'AssignmentExpression':
        for (const target of patternTargets(child(node, 'left'))) this.#write(target, target === child(node, 'left') && node.operator === '=' ? child(node, 'right') : undefined)
        return
      case 'UpdateExpression':
        for (const target of patternTargets(child(node, 'argument'))) this.#write(target, undefined)
        return
      case 'UnaryExpression':
        if (node.operator === 'delete') for (const target of patternTargets(child(node, 'argument'))) this.#write(target, undefined)
        return
      case 'ForOfStatement':
      case 'ForInStatement':
        for (const target of patternTargets(child(node, 'left'))) this.#write(target, undefined)
        return
      case 'WithStatement':
        for (const value of this.#resolve(child(node, 'object'))) this.#writeFlag(value, ANY_KEY, undefined, line)
        return
      case 'ImportDeclaration':
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration': {
        const source = child(node, 'source')
        const name = source === null ? null : text(source, 'value')
        if (name !== null && loadedModule(name)?.root === 'fs') this.#usesFs = true
        if (name !== null && isTestPath(name)) this.#found(FLAG.readsTestFiles, line)
        return
      }
      case 'ImportExpression':
        this.#loadFlags(child(node, 'source'), line)
        return
      case 'MemberExpression':
      case 'OptionalMemberExpression':
        for (const value of this.#resolve(node)) {
          if (value.root === 'process' && value.path.length === 1 && value.path[0] === 'ppid') this.#found(FLAG.readsProc, line)
          if (value.root === 'fs') this.#usesFs = true
        }
        return
      case 'StringLiteral':
      case 'TemplateLiteral':
      case 'BinaryExpression':
        if (node.type === 'BinaryExpression' && node.operator !== '+') return
        this.#readFlags(this.#shape(node), line)
        return
      case 'RegExpLiteral':
        if (isTestPattern(text(node, 'pattern') ?? '')) this.#testPathLine ??= line
        return
    }
    if (!CALLS.has(node.type)) return
    // A path built by a call (`['/pr', 'oc/self'].join('')`, `String.fromCharCode(…)`) is read like a literal.
    if (node.type === 'CallExpression') {
      const folded = this.#fold(node)
      if (folded !== null) this.#readFlags(folded, line)
    }
    this.#callFlags(node, inFunction, line)
  }

  #readFlags(shape: string, line: number): void {
    if (isProcPath(shape)) this.#found(FLAG.readsProc, line)
    if (isTestPath(shape)) this.#testPathLine ??= line
  }

  #write(target: Node, value: Node | null | undefined): void {
    const key = this.#memberKey(target)
    for (const object of this.#resolve(child(target, 'object'))) this.#writeFlag(object, key, value, lineOf(target))
  }

  /** A write of `key` (`ANY_KEY`: any) on `object`; `value` is the written expression (undefined: not known). */
  #writeFlag(object: KnownValue, key: string, value: Node | null | undefined, line: number): undefined {
    const target = key === ANY_KEY && object.root === 'global' && object.path.length === 0 ? object : member(object, key)
    switch (target.root) {
      case 'assert':
        return this.#found(FLAG.replacesAssert, line)
      case 'expect':
      case 'chai':
        return this.#found(FLAG.replacesExpect, line)
      case 'test':
      case 'vitest':
      case 'module':
        return this.#found(FLAG.monkeypatchesRunner, line)
      case 'require':
        if (target.path.length > 0) this.#found(FLAG.monkeypatchesRunner, line)
        return
      case 'process': {
        const [first] = target.path
        if (first === undefined || !PROCESS_RUNNER_KEYS.has(first)) return
        // `process.exitCode = 1` is a CLI's failure; any other value (0, a variable, a getter) can hide the runner's.
        if (first === 'exitCode' && target.path.length === 1 && value?.type === 'NumericLiteral' && value.value !== 0) return
        return this.#found(FLAG.monkeypatchesRunner, line)
      }
    }
  }

  #callFlags(node: Node, inFunction: boolean, line: number): undefined {
    const callee = child(node, 'callee')
    const args = children(node, 'arguments')
    if (callee?.type === 'Import') return this.#loadFlags(args[0] ?? null, line)
    for (const value of this.#resolve(callee)) {
      if (value.root === 'fs') this.#usesFs = true
      const last = value.path.at(-1)
      // `f.call(this, …)` and `f.apply(this, […])` call `f`.
      if (last === 'call') this.#calledFlags(known(value.root, value.path.slice(0, -1)), args.slice(1), inFunction, line)
      else if (last === 'apply')
        this.#calledFlags(known(value.root, value.path.slice(0, -1)), args[1]?.type === 'ArrayExpression' ? children(args[1], 'elements') : [], inFunction, line)
      else this.#calledFlags(value, args, inFunction, line)
    }
  }

  #calledFlags(value: KnownValue, args: readonly Node[], inFunction: boolean, line: number): undefined {
    const { root, path } = value
    const only = path.length === 1 ? path[0] : undefined
    const arg = (i: number) => args[i] ?? null
    if ((root === 'Object' && OBJECT_WRITERS.has(only ?? '')) || (root === 'Reflect' && REFLECT_WRITERS.has(only ?? ''))) return this.#writerFlags(only!, root, args, line)
    if (root === 'expect' && EXPECT_EXTENSIONS.has(only ?? '')) return this.#found(FLAG.extendsExpect, line)
    if (root === 'chai' && CHAI_EXTENSIONS.has(path.at(-1) ?? '')) return this.#found(FLAG.extendsExpect, line)
    if (root === 'test' && (path.at(-1) === 'mock' || path.at(-1) === 'doMock' || (path.at(-2) === 'mock' && path.at(-1) === 'module'))) {
      const mocked = guardedModule(this.#fold(arg(0)) ?? '')
      if (mocked === 'assert') this.#found(FLAG.replacesAssert, line)
      else if (mocked === 'expect' || mocked === 'chai' || mocked === 'vitest') this.#found(FLAG.replacesExpect, line)
      else if (mocked === 'test') this.#found(FLAG.monkeypatchesRunner, line)
      return
    }
    if (root === 'test' && path.at(-1) === 'stubGlobal') {
      this.#writeFlag(known('global', []), this.#fold(arg(0)) ?? ANY_KEY, undefined, line)
      return
    }
    if (root === 'eval' && path.length === 0) return this.#compiled(args.slice(0, 1), line)
    if (root === 'Function' && path.length === 0) return this.#compiled(args, line)
    if (root === 'vm' && VM_COMPILERS.has(only ?? '')) return this.#compiled(args.slice(0, 1), line)
    if (root === 'global' && STRING_TIMERS.has(only ?? '') && args[0] !== undefined && isStringExpression(args[0])) return this.#compiled(args.slice(0, 1), line)
    if (root === 'require' && path.length === 0) return this.#loadFlags(arg(0), line)
    if (root === 'process') {
      if (only === 'getBuiltinModule') return this.#loadFlags(arg(0), line)
      if (LISTENERS.has(only ?? '')) {
        const event = this.#fold(arg(0))
        if (event === null || EXIT_EVENTS.has(event)) this.#found(FLAG.monkeypatchesRunner, line)
        return
      }
      if (only === 'setUncaughtExceptionCaptureCallback') return this.#found(FLAG.monkeypatchesRunner, line)
      if (EXITS.has(only ?? '') && !inFunction) return this.#found(FLAG.processExit, line)
      if (only === 'binding' && this.#fold(arg(0)) === 'fs') this.#usesFs = true
      return
    }
    if (root === 'module' && (only === 'register' || only === 'registerHooks' || only === 'syncBuiltinESMExports')) this.#found(FLAG.monkeypatchesRunner, line)
  }

  // `Object.assign(t, …)`, `Object.defineProperty(t, k, …)`, `Reflect.set(t, k, …)` and the like: writes to `t`.
  #writerFlags(writer: string, root: string, args: readonly Node[], line: number): undefined {
    const targets = this.#resolve(args[0] ?? null)
    if (targets.length === 0) return
    let keys: Array<{ key: string; value: Node | null | undefined }>
    if (writer === 'assign') keys = args.slice(1).flatMap((source) => this.#objectKeys(source))
    else if (writer === 'defineProperties') keys = this.#objectKeys(args[1] ?? null).map(({ key }) => ({ key, value: undefined }))
    else if (writer === 'setPrototypeOf') keys = [{ key: ANY_KEY, value: undefined }]
    else keys = [{ key: args[1] === undefined ? ANY_KEY : (this.#fold(args[1]) ?? ANY_KEY), value: root === 'Reflect' && writer === 'set' ? (args[2] ?? undefined) : undefined }]
    for (const target of targets) for (const { key, value } of keys) this.#writeFlag(target, key, value, line)
  }

  #objectKeys(source: Node | null): Array<{ key: string; value: Node | null | undefined }> {
    if (source?.type !== 'ObjectExpression') return [{ key: ANY_KEY, value: undefined }]
    return children(source, 'properties').map((property) =>
      property.type === 'SpreadElement' ? { key: ANY_KEY, value: undefined } : { key: this.#propertyKey(property), value: child(property, 'value') ?? undefined },
    )
  }

  // Code compiled from strings: a string the analysis can read is analysed as code here; any other is flagged.
  #compiled(codes: readonly Node[], line: number): undefined {
    for (const code of codes) {
      const source = this.#fold(code)
      if (source === null || this.#evalDepth >= MAX_EVAL_DEPTH) {
        this.#found(FLAG.evaluatesString, line)
        continue
      }
      const inner = new ScriptAnalysis('eval.js', source, this.#evalDepth + 1, this)
      for (const finding of inner.findings) this.#found(finding.name === FLAG.doesNotParse ? FLAG.evaluatesString : finding.name, line)
    }
  }

  #loadFlags(specifier: Node | null, line: number): undefined {
    if (specifier === null) return
    const name = this.#fold(specifier)
    if (name === null) this.#found(FLAG.computedModule, line)
    else if (isTestPath(name)) this.#found(FLAG.readsTestFiles, line)
    else if (loadedModule(name)?.root === 'fs') this.#usesFs = true
  }
}

/** The name under which the analysis keeps what property `key` of the object literal bound to `name` holds. */
function heldName(name: string, key: string): string {
  return `${name}\u0000${key}`
}

/** The expression a wrapper (`await`, a type assertion, parentheses) holds. */
function inner(node: Node): Node | null {
  return child(node, node.type === 'AwaitExpression' ? 'argument' : 'expression')
}

function isStringExpression(node: Node): boolean {
  return node.type === 'StringLiteral' || node.type === 'TemplateLiteral' || (node.type === 'BinaryExpression' && node.operator === '+')
}

/** A function's parameters that take its arguments: TypeScript's `this` parameter (a type only) left out. */
function parametersOf(fn: Node): Node[] {
  const params = children(fn, 'params')
  return params[0]?.type === 'Identifier' && text(params[0], 'name') === 'this' ? params.slice(1) : params
}

/** The names a binding pattern declares. */
function patternNames(pattern: Node | null): string[] {
  if (pattern === null) return []
  switch (pattern.type) {
    case 'Identifier':
      return [text(pattern, 'name')!]
    case 'ObjectPattern':
      return children(pattern, 'properties').flatMap((property) => patternNames(child(property, property.type === 'RestElement' ? 'argument' : 'value')))
    case 'ArrayPattern':
      return children(pattern, 'elements').flatMap(patternNames)
    case 'AssignmentPattern':
      return patternNames(child(pattern, 'left'))
    case 'RestElement':
      return patternNames(child(pattern, 'argument'))
    case 'TSParameterProperty':
      return patternNames(child(pattern, 'parameter'))
    default:
      return []
  }
}

/** The member expressions an assignment target writes (`a.b = `, `({ x: a.b } = …)`, `[a[k]] = …`). */
function patternTargets(pattern: Node | null): Node[] {
  if (pattern === null) return []
  if (MEMBERS.has(pattern.type)) return [pattern]
  if (WRAPPERS.has(pattern.type)) return patternTargets(inner(pattern))
  switch (pattern.type) {
    case 'ObjectPattern':
      return children(pattern, 'properties').flatMap((property) => patternTargets(child(property, property.type === 'RestElement' ? 'argument' : 'value')))
    case 'ArrayPattern':
      return children(pattern, 'elements').flatMap(patternTargets)
    case 'AssignmentPattern':
      return patternTargets(child(pattern, 'left'))
    case 'RestElement':
      return patternTargets(child(pattern, 'argument'))
    default:
      return []
  }
}
