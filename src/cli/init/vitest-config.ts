import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

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

const IMPORT_LINE = "import { experimentProject, TaskOutcomeReporter } from 'task-outcome'"

function freshConfig(set: string): string {
  return `import { defineConfig } from 'vitest/config'
${IMPORT_LINE}

// Each experiment is a Vitest project: \`npx vitest run --project <name>\`.
export default defineConfig(async () => ({
  test: {
    reporters: ['default', new TaskOutcomeReporter()],
    projects: [
${projectEntries(set)
  .map((entry) => `      ${entry}`)
  .join('\n')}
    ],
  },
}))
`
}

/**
 * Adds the set's experiments to the project's Vitest config. With no config
 * it writes one. It edits an existing one only where that is safe: the file
 * already imports `experimentProject` from `task-outcome` and has exactly one
 * `projects: [`, so the entries go first in that list. Otherwise it changes
 * nothing and returns the two lines to add by hand.
 */
export function addToVitestConfig(root: string, set: string): ConfigChange {
  const existing = CONFIG_NAMES.map((name) => path.join(root, name)).find((file) => existsSync(file))
  if (existing === undefined) {
    const file = path.join(root, 'vitest.config.ts')
    writeFileSync(file, freshConfig(set))
    return { kind: 'written', file }
  }
  const source = readFileSync(existing, 'utf8')
  const entries = projectEntries(set)
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
