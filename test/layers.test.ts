import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'

// The layer table of docs/design.md, enforced: every file of src/, reporters/ and bench/perf/ belongs to a
// layer, imports only the layers its own may (directly or through one it may), and no files import each
// other in a loop. Imports are read with the TypeScript compiler's own scanner (static, `export … from`,
// `import type` and dynamic `import()` alike), so a type-only import counts as an arrow too.

const root = path.resolve(import.meta.dirname, '..')

/** Which layers each layer may import. Shared leaves (`errors.ts`, `version.ts`, `format/`, `shared/`) are open to all. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  stats: [],
  experiment: ['stats'],
  tasks: ['experiment', 'sandbox'],
  sandbox: [],
  workspace: ['tasks', 'sandbox'],
  'scripted-model': ['tasks'],
  agents: ['workspace', 'sandbox', 'scripted-model'],
  oracle: ['workspace', 'sandbox'],
  runs: ['agents', 'oracle'],
  curate: ['runs'],
  analysis: ['stats', 'runs'],
  vitest: ['runs', 'agents', 'oracle'],
  // The reporter is the plugin's other half: it reads the plugin's provide/meta contract (src/vitest/meta.ts).
  reporters: ['runs', 'analysis', 'vitest'],
  cli: ['curate', 'analysis', 'vitest'],
  // The package's public entry point re-exports from every layer (and the reporter).
  api: ['cli', 'reporters'],
  bench: ['api'],
}

/** Files and folders every layer may import; they import nothing of ours themselves. */
const SHARED_LEAVES = ['src/errors.ts', 'src/version.ts', 'src/format/', 'src/shared/']

/** The layer a repository file belongs to, or null for one outside the table. */
function layerOf(file: string): string | null {
  if (SHARED_LEAVES.some((leaf) => file === leaf || (leaf.endsWith('/') && file.startsWith(leaf)))) return 'leaf'
  if (file === 'src/index.ts') return 'api'
  if (file.startsWith('reporters/')) return 'reporters'
  if (file.startsWith('bench/perf/')) return 'bench'
  const folder = /^src\/([^/]+)\//.exec(file)?.[1]
  return folder !== undefined && folder in MAY_IMPORT ? folder : null
}

/** Every layer `layer` may import, directly or through a layer it may import. */
function reachable(layer: string, seen = new Set<string>()): Set<string> {
  for (const next of MAY_IMPORT[layer] ?? []) {
    if (!seen.has(next)) {
      seen.add(next)
      reachable(next, seen)
    }
  }
  return seen
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const file = `${dir}/${name}`
    if (statSync(path.join(root, file)).isDirectory()) return sourceFiles(file)
    return /\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts') ? [file] : []
  })
}

/** Each file's imports of other repository files (relative specifiers only; packages are not arrows). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of ['src', 'reporters', 'bench/perf'].flatMap(sourceFiles)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true)
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) =>
        path
          .relative(root, path.resolve(root, path.dirname(file), specifier))
          .split(path.sep)
          .join('/'),
      )
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

/** The import loops: each a list of files, every one importing the next and the last the first. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)))
      else if (state.get(next) === undefined) visit(next)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of [...graph.keys()].sort()) if (state.get(file) === undefined) visit(file)
  return found
}

/** Every import of a layer its own may not import, as `file → target (why)`. */
function upwardArrows(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const upward: string[] = []
  for (const [file, targets] of graph) {
    const from = layerOf(file)
    if (from === null) continue
    for (const target of targets) {
      const to = layerOf(target)
      if (to === null || to === from || to === 'leaf') continue
      if (from === 'leaf' || !reachable(from).has(to)) upward.push(`${file} → ${target} (${from} may not import ${to})`)
    }
  }
  return upward
}

const graph = importGraph()

describe('the layer table', () => {
  test('every source file belongs to a layer of the table', () => {
    const unplaced = [...graph.keys()].filter((file) => layerOf(file) === null)
    expect(unplaced, 'add the folder to the layer table (docs/design.md and test/layers.test.ts)').toEqual([])
  })

  test('no file imports a layer its own may not', () => {
    expect(upwardArrows(graph)).toEqual([])
  })

  test('no files import each other in a loop', () => {
    expect(cycles(graph).map((loop) => [...loop, loop[0]].join(' → '))).toEqual([])
  })

  test('the checks name both files of an upward arrow and every file of a loop', () => {
    const planted = new Map([
      ['src/stats/a.ts', ['src/runs/b.ts', 'src/errors.ts']],
      ['src/runs/b.ts', ['src/stats/a.ts']],
    ])
    expect(upwardArrows(planted)).toEqual(['src/stats/a.ts → src/runs/b.ts (stats may not import runs)'])
    expect(cycles(planted)).toEqual([['src/runs/b.ts', 'src/stats/a.ts']])
  })

  test('the graph is read from the real files, type-only imports included', () => {
    expect(graph.get('src/runs/record.ts')).toContain('src/agents/usage.ts')
    expect(graph.get('src/agents/claude-code/classify.ts')).toContain('src/agents/usage.ts')
  })
})
