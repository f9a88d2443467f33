/**
 * A Babel syntax tree read without its type definitions: every node is a
 * `type` and fields, read through the accessors here, so the analysis names
 * only the node types it looks at and ignores any it does not know.
 */

/** One node of the tree. */
export interface Node {
  readonly type: string
  readonly loc?: { readonly start: { readonly line: number } } | null
  readonly [field: string]: unknown
}

/** Whether `value` is a node. */
export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
}

/** The node in `node[field]`, or null. */
export function child(node: Node, field: string): Node | null {
  const value = node[field]
  return isNode(value) ? value : null
}

/** The nodes in the list `node[field]` (holes and non-nodes left out). */
export function children(node: Node, field: string): Node[] {
  const value = node[field]
  return Array.isArray(value) ? value.filter(isNode) : []
}

/** The string in `node[field]`, or null. */
export function text(node: Node, field: string): string | null {
  const value = node[field]
  return typeof value === 'string' ? value : null
}

/** The node's 1-based line (1 when the parser gave none). */
export function lineOf(node: Node): number {
  return node.loc?.start.line ?? 1
}

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod'])

/** Whether the node is a function of any kind (its body runs when it is called). */
export function isFunction(node: Node): boolean {
  return FUNCTIONS.has(node.type)
}

const SKIPPED_FIELDS = new Set(['type', 'loc', 'start', 'end', 'range', 'extra', 'errors', 'comments', 'leadingComments', 'trailingComments', 'innerComments', 'tokens'])

/** A node as the walk meets it: whether it runs only when a function is called (not while the module loads). */
export interface Visited {
  readonly node: Node
  readonly inFunction: boolean
  /** The innermost function the node is in (its `return` gives that function's result), or null. */
  readonly owner: Node | null
}

/**
 * Every node below `root`, in source order, without recursion (a tree
 * thousands deep is walked like a flat one). A function's body is "in a
 * function" unless the function is called where it stands (an IIFE, `?.()` too), and so
 * is a class field's initialiser.
 */
export function walk(root: Node): Visited[] {
  const visited: Visited[] = []
  const stack: Visited[] = [{ node: root, inFunction: false, owner: null }]
  while (stack.length > 0) {
    const entry = stack.pop()!
    visited.push(entry)
    const { node } = entry
    const calledHere = node.type === 'CallExpression' || node.type === 'OptionalCallExpression' || node.type === 'NewExpression' ? child(node, 'callee') : null
    const found: Visited[] = []
    for (const field of Object.keys(node)) {
      if (SKIPPED_FIELDS.has(field)) continue
      const value = node[field]
      for (const item of Array.isArray(value) ? value : [value]) {
        if (!isNode(item)) continue
        const deferred = (isFunction(item) && item !== calledHere) || (node.type === 'ClassProperty' && field === 'value')
        found.push({ node: item, inFunction: entry.inFunction || deferred, owner: isFunction(node) ? node : entry.owner })
      }
    }
    found.sort((a, b) => position(a.node) - position(b.node))
    for (let i = found.length - 1; i >= 0; i--) stack.push(found[i]!)
  }
  return visited
}

function position(node: Node): number {
  return typeof node.start === 'number' ? node.start : 0
}
