import { parse } from '@babel/parser'
import { describe, expect, test } from 'vitest'
import { child, children, isFunction, isNode, lineOf, type Node, text, walk } from '../../../src/oracle/disarming/script-ast.ts'

/** The tree of `source`, parsed as a module. */
function tree(source: string): Node {
  return parse(source, { sourceType: 'module', plugins: ['typescript'], allowReturnOutsideFunction: true }) as unknown as Node
}

/** The walk of `source`, each node as `<type>` (with its name or value when it has one), `!` when in a function. */
function walked(source: string, only?: (node: Node) => boolean): string[] {
  return walk(tree(source))
    .filter(({ node }) => only === undefined || only(node))
    .map(({ node, inFunction }) => `${node.type}${text(node, 'name') === null ? '' : ` ${text(node, 'name')}`}${inFunction ? '!' : ''}`)
}

/** Whether the node is an identifier (the walks below list those only). */
const identifier = (node: Node): boolean => node.type === 'Identifier'

describe('the accessors read fields without trusting their types', () => {
  test('isNode: an object with a string type, nothing else', () => {
    expect(isNode({ type: 'Identifier' })).toBe(true)
    expect(isNode({ type: 1 })).toBe(false)
    expect(isNode({})).toBe(false)
    expect(isNode(null)).toBe(false)
    expect(isNode(undefined)).toBe(false)
    expect(isNode('Identifier')).toBe(false)
    expect(isNode(Object.assign(() => {}, { type: 'Identifier' }))).toBe(false)
  })
  const node: Node = { type: 'X', one: { type: 'Y' }, word: 'w', number: 1, list: [{ type: 'A' }, null, 'b', { type: 'C' }], notNode: { kind: 'Z' } }
  test('child: the node in a field, or null', () => {
    expect(child(node, 'one')).toEqual({ type: 'Y' })
    expect(child(node, 'notNode')).toBeNull()
    expect(child(node, 'word')).toBeNull()
    expect(child(node, 'missing')).toBeNull()
  })
  test('children: the nodes of a list, holes and non-nodes left out; [] for what is not a list', () => {
    expect(children(node, 'list')).toEqual([{ type: 'A' }, { type: 'C' }])
    expect(children(node, 'one')).toEqual([])
    expect(children(node, 'missing')).toEqual([])
  })
  test('text: the string in a field, or null', () => {
    expect(text(node, 'word')).toBe('w')
    expect(text(node, 'number')).toBeNull()
    expect(text(node, 'missing')).toBeNull()
  })
  test('lineOf: the 1-based line, 1 when the parser gave none', () => {
    expect(lineOf({ type: 'X', loc: { start: { line: 7 } } })).toBe(7)
    expect(lineOf({ type: 'X', loc: null })).toBe(1)
    expect(lineOf({ type: 'X' })).toBe(1)
  })
  test.each(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod'])(
    'isFunction: %s is a function',
    (type) => {
      expect(isFunction({ type })).toBe(true)
    },
  )
  test.each(['CallExpression', 'ClassDeclaration', 'BlockStatement'])('isFunction: %s is not', (type) => {
    expect(isFunction({ type })).toBe(false)
  })
})

describe('walk: every node below the root, in source order', () => {
  test('the root first, then each node before the ones inside it and after the ones before it', () => {
    expect(walked('a(b, c.d)\ne = f', identifier)).toEqual(['Identifier a', 'Identifier b', 'Identifier c', 'Identifier d', 'Identifier e', 'Identifier f'])
    expect(walk(tree('x'))[0]!.node.type).toBe('File')
  })
  test('fields in source order even when the node lists them otherwise (a TypeScript `x as T`), the fields without a start first', () => {
    const root: Node = { type: 'Root', late: { type: 'Late', start: 9 }, early: { type: 'Early', start: 2 }, none: { type: 'None' } }
    expect(walk(root).map(({ node }) => node.type)).toEqual(['Root', 'None', 'Early', 'Late'])
  })
  test('a tree a hundred thousand deep is walked without recursion', () => {
    let root: Node = { type: 'Leaf' }
    for (let depth = 0; depth < 100_000; depth++) root = { type: 'Nested', inner: root }
    const visited = walk(root)
    expect(visited).toHaveLength(100_001)
    expect(visited.at(-1)!.node.type).toBe('Leaf')
  })
  test('locations, comments and extras are not nodes of the tree', () => {
    const hidden = { type: 'Hidden' }
    const root: Node = {
      type: 'Root',
      shown: { type: 'Shown' },
      ...Object.fromEntries(
        ['loc', 'start', 'end', 'range', 'extra', 'errors', 'comments', 'leadingComments', 'trailingComments', 'innerComments', 'tokens'].map((field) => [field, hidden]),
      ),
    }
    expect(walk(root).map(({ node }) => node.type)).toEqual(['Root', 'Shown'])
  })
})

describe('walk: what runs only when a function is called', () => {
  test('a function (its name, parameters and body) is in a function; what follows it is not', () => {
    expect(walked('function f(p) { a() }\nb()', identifier)).toEqual(['Identifier f!', 'Identifier p!', 'Identifier a!', 'Identifier b'])
    expect(walked('x = () => a\ny = function () { b }\nz = { m() { c } }', identifier)).toEqual([
      'Identifier x',
      'Identifier a!',
      'Identifier y',
      'Identifier b!',
      'Identifier z',
      'Identifier m!',
      'Identifier c!',
    ])
  })
  test('a function passed to a call is in a function, inside one nested or not', () => {
    expect(walked('g(function () { a(() => b) })', identifier)).toEqual(['Identifier g', 'Identifier a!', 'Identifier b!'])
  })
  test('a function called where it stands (an IIFE, by call, optional call or new) runs as the module loads', () => {
    expect(walked('(function () { a })()\n;(() => b)()\nnew (function () { c })()\n;(() => d)?.()', identifier)).toEqual([
      'Identifier a',
      'Identifier b',
      'Identifier c',
      'Identifier d',
    ])
  })
  test("an object literal's property values run as the module loads (only a class field's wait)", () => {
    expect(walked('o = { a: b, [c]: d }', identifier)).toEqual(['Identifier o', 'Identifier a', 'Identifier b', 'Identifier c', 'Identifier d'])
  })
  test("a class field's initialiser is in a function; its computed key and the class's static block are not", () => {
    expect(walked('class A { [k] = v; static { s } m() { b } }', identifier)).toEqual([
      'Identifier A',
      'Identifier k',
      'Identifier v!',
      'Identifier s',
      'Identifier m!',
      'Identifier b!',
    ])
  })
  test('owner: the innermost function a node is in, null outside any', () => {
    const visited = walk(tree('return 0\nfunction outer() { const inner = () => { return 1 }; return 2 }'))
    const owners = visited
      .filter(({ node }) => node.type === 'ReturnStatement')
      .map(({ owner }) => (owner === null ? null : owner.type === 'FunctionDeclaration' ? 'outer' : 'inner'))
    expect(owners).toEqual([null, 'inner', 'outer'])
  })
})
