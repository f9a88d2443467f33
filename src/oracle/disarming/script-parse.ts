import { type ParserOptions, type ParserPlugin, parse } from '@babel/parser'
import type { Node } from './script-ast.ts'

/**
 * JavaScript and TypeScript (with JSX) parsed by `@babel/parser`: pure
 * JavaScript, so a hostile file (nested ten thousand deep, or just malformed)
 * fails with an exception the scanner catches, never a crash of the harness;
 * and one parser for `.js`, `.jsx`, `.ts`, `.tsx`, `.mjs`, `.cjs`, `.mts`, `.cts`.
 * Each file is tried as a module, then as a script (sloppy-mode code a module
 * rejects), with the plugins its extension calls for (`.js` also with Flow);
 * the attempt with the fewest errors wins. Errors the parser recovers from
 * still leave a tree, which is analysed.
 */

/** A parsed file: its tree (null when the parser gave up) and the line of its first error (null when none). */
export interface ParsedScript {
  readonly ast: Node | null
  readonly errorLine: number | null
}

const TYPESCRIPT = /\.[cm]?ts$/
const TSX = /\.tsx$/

function pluginSets(file: string): ParserPlugin[][] {
  if (TSX.test(file)) return [['typescript', 'jsx', 'decorators-legacy']]
  if (TYPESCRIPT.test(file))
    return [
      ['typescript', 'decorators-legacy'],
      ['typescript', 'decorators-legacy', 'jsx'],
    ]
  return [['jsx'], ['jsx', 'flow'], ['typescript', 'jsx']]
}

const BASE: ParserOptions = {
  allowReturnOutsideFunction: true,
  allowAwaitOutsideFunction: true,
  allowImportExportEverywhere: true,
  allowSuperOutsideMethod: true,
  allowUndeclaredExports: true,
  allowNewTargetOutsideFunction: true,
  errorRecovery: true,
  attachComment: false,
}

function errorLine(error: unknown): number {
  const loc = (error as { loc?: { line?: unknown } } | null)?.loc
  return typeof loc?.line === 'number' ? loc.line : 1
}

/** Parses `text` as the file named `file` (its extension chooses the plugins). */
export function parseScript(file: string, text: string): ParsedScript {
  let best: ParsedScript | null = null
  let bestErrors = Number.POSITIVE_INFINITY
  let thrown: unknown
  for (const plugins of pluginSets(file)) {
    for (const sourceType of ['module', 'script'] as const) {
      try {
        const parsed = parse(text, { ...BASE, sourceType, plugins })
        const errors = parsed.errors ?? []
        const ast = parsed as unknown as Node
        if (errors.length === 0) return { ast, errorLine: null }
        if (errors.length < bestErrors) {
          best = { ast, errorLine: errorLine(errors[0]) }
          bestErrors = errors.length
        }
      } catch (error) {
        thrown ??= error
      }
    }
  }
  return best ?? { ast: null, errorLine: errorLine(thrown) }
}
