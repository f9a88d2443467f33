import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { repoRoot } from './experiment-fixture.ts'
import type { Step } from './throwaway.ts'

/**
 * The small Vitest-tested repository the README's recipe is tried on (npm,
 * pnpm, yarn): `src/kebab.js` and its tests, an initial commit and two fixes,
 * each fix adding one test; the prompts for both fixes; and the CLI they are
 * harvested, selected and validated with.
 */

/** The README's Vitest test command, relative to the repository (its prepared `node_modules`). */
export const VITEST_COMMAND = 'node_modules/.bin/vitest run --reporter=junit --outputFile={junit} {tests}'

/** This repository's CLI, run from its root with the current Node (and `env` over the test's); never rejects (the test reads the exit code). */
export const cli = (args: readonly string[], env: Record<string, string> = {}) =>
  execa(process.execPath, ['bin/task-outcome.js', ...args], { cwd: repoRoot, env, reject: false, all: true })

/** `src/kebab.js` with `body` as its return expression. */
export const kebabCode = (body: string) => `export function kebab(text) {\n  return ${body}\n}\n`
/** The code before the first fix, after it, and after the second fix. */
export const KEBAB_V0 = "text.toLowerCase().replace(/ /g, '-')"
export const KEBAB_V1 = "text.toLowerCase().replace(/[^a-z0-9]+/g, '-')"
export const KEBAB_V2 = "text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')"

const kebabTests = (cases: ReadonlyArray<readonly [string, string]>) =>
  `import { describe, expect, it } from 'vitest'\nimport { kebab } from '../src/kebab.js'\n\ndescribe('kebab', () => {\n` +
  cases
    .map(([input, output]) => `  it(${JSON.stringify(`turns ${input} into ${output}`)}, () => expect(kebab(${JSON.stringify(input)})).toBe(${JSON.stringify(output)}))\n`)
    .join('') +
  '})\n'
const BASE = [['Two Words', 'two-words']] as const
const FIRST = [...BASE, ['Hello, World', 'hello-world']] as const
const SECOND = [...FIRST, ['Hello!', 'hello']] as const

/** The history: `project` (package.json, a lockfile) in the initial commit, then the two fixes. */
export function kebabHistory(project: Readonly<Record<string, string>>): Step[] {
  return [
    {
      subject: 'Initial URL fragments',
      files: { ...project, '.gitignore': 'node_modules/\n', 'src/kebab.js': kebabCode(KEBAB_V0), 'test/kebab.test.js': kebabTests(BASE) },
    },
    { subject: 'fix: punctuation left in URL fragments', files: { 'src/kebab.js': kebabCode(KEBAB_V1), 'test/kebab.test.js': kebabTests(FIRST) } },
    { subject: 'fix: a dash left at the end', files: { 'src/kebab.js': kebabCode(KEBAB_V2), 'test/kebab.test.js': kebabTests(SECOND) } },
  ]
}

/** Writes the two fixes' prompts (`prompts/<commit>.md`) into `setDir`. */
export async function writeKebabPrompts(setDir: string, commits: readonly string[]): Promise<void> {
  await mkdir(path.join(setDir, 'prompts'), { recursive: true })
  await writeFile(path.join(setDir, 'prompts', `${commits[1]!.slice(0, 12)}.md`), 'A title with a comma gives a URL fragment with the comma still in it.\n')
  await writeFile(path.join(setDir, 'prompts', `${commits[2]!.slice(0, 12)}.md`), 'A title ending in "!" gives a URL fragment ending in a dash.\n')
}
