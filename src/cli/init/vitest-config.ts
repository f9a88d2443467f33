import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { EXAMPLE_FILE } from './example.ts'

/** The file names Vitest looks for, in its order. */
const CONFIG_NAMES = ['vitest.config.ts', 'vitest.config.mts', 'vitest.config.cts', 'vitest.config.js', 'vitest.config.mjs', 'vitest.config.cjs']

/** What `init` did to the project's Vitest config. */
export type ConfigChange =
  | { readonly kind: 'written'; readonly file: string }
  | { readonly kind: 'edited'; readonly file: string }
  | { readonly kind: 'already'; readonly file: string }
  | { readonly kind: 'manual'; readonly file: string; readonly lines: readonly string[]; readonly why: string }

/** The entries of `test.projects` for the set's two experiments. */
export function projectEntries(set: string): string[] {
  const file = `tasks/${set}/experiment.ts`
  return [`await experimentProject('${file}', { exportName: 'pilot' }),`, `await experimentProject('${file}', { exportName: 'smoke' }),`]
}

/** The entry of `test.projects` for the example `init` writes. */
const EXAMPLE_ENTRY = `await experimentProject('${EXAMPLE_FILE}'),`

/**
 * The name of the config `init` writes: `vitest.config.ts` in an ES module package, `vitest.config.mts` in a
 * CommonJS one (no `"type": "module"`, as `npm init -y` makes it), where Vite warns on every run that a `.ts`
 * config with ESM syntax is loaded as CommonJS.
 */
function freshConfigName(root: string): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { type?: unknown }
    return pkg.type === 'module' ? 'vitest.config.ts' : 'vitest.config.mts'
  } catch {
    return 'vitest.config.mts'
  }
}

const IMPORT_LINE = "import { experimentProject, TaskOutcomeReporter } from 'task-outcome'"

function freshConfig(entries: readonly string[]): string {
  return `import { defineConfig } from 'vitest/config'
${IMPORT_LINE}

// Each experiment is a Vitest project: \`npx vitest run --project <name>\`.
export default defineConfig(async () => ({
  test: {
    reporters: ['default', new TaskOutcomeReporter()],
    projects: [
${entries.map((entry) => `      ${entry}`).join('\n')}
    ],
  },
}))
`
}

/**
 * Adds the set's experiments (and the example's, when `example`) to the
 * project's Vitest config. With no config it writes one. It edits an existing one only where that is safe: the file
 * already imports `experimentProject` from `task-outcome` and has exactly one
 * `projects: [`, so the entries go first in that list. Otherwise it changes
 * nothing and returns the two lines to add by hand.
 */
export function addToVitestConfig(root: string, set: string, example: boolean): ConfigChange {
  const existing = CONFIG_NAMES.map((name) => path.join(root, name)).find((file) => existsSync(file))
  const exampleEntries = example ? [EXAMPLE_ENTRY] : []
  if (existing === undefined) {
    const file = path.join(root, freshConfigName(root))
    writeFileSync(file, freshConfig([...projectEntries(set), ...exampleEntries]))
    return { kind: 'written', file }
  }
  const source = readFileSync(existing, 'utf8')
  const entries = [...projectEntries(set), ...(source.includes(`'${EXAMPLE_FILE}'`) ? [] : exampleEntries)]
  if (source.includes(`'tasks/${set}/experiment.ts'`)) return { kind: 'already', file: existing }
  const manual = (why: string): ConfigChange => ({
    kind: 'manual',
    file: existing,
    why,
    lines: [IMPORT_LINE.replace(', TaskOutcomeReporter', ''), entries.join(' ')],
  })
  const importsPackage = /import\s*\{[^}]*\bexperimentProject\b[^}]*\}\s*from\s*['"]task-outcome['"]/.test(source)
  if (!importsPackage) return manual('it does not import experimentProject from task-outcome yet')
  const lists = [...source.matchAll(/^([ \t]*)projects:\s*\[[ \t]*\n/gm)]
  if (lists.length !== 1) return manual(lists.length === 0 ? 'it has no `projects: [` list on a line of its own' : 'it has more than one `projects: [` list')
  const [match] = lists
  const indent = `${match![1]}  `
  const at = match!.index! + match![0].length
  writeFileSync(existing, `${source.slice(0, at)}${entries.map((entry) => `${indent}${entry}\n`).join('')}${source.slice(at)}`)
  return { kind: 'edited', file: existing }
}
