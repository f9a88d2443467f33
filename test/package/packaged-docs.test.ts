import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { beforeAll, describe, expect, test } from 'vitest'
import { repoRoot } from '../helpers/experiment-fixture.ts'
import { firstCommands, shippedReadme } from '../helpers/readmes.ts'

// The docs a user reads in node_modules/task-outcome: the README and every Markdown file the package ships.
// The shipped README is the package's (README.md without its repository-only parts: scripts/package-readme.mjs,
// swapped in by prepack), so that is the one read here.
// Each path they cite must be in the tarball: a relative link in any of them, and in the README also a path
// in backticks under one of the repository's own folders (a user's paths, such as tasks/pilot/experiment.ts,
// are not the package's). `npm pack --dry-run --json --ignore-scripts` lists the tarball without building.

/** Folders that only the repository has: a README path under one of them names a file of the package. */
const REPOSITORY_FOLDERS = ['src/', 'test/', 'samples/', 'scripts/', 'bench/perf/', '.ci/', 'docs/', 'reporters/', 'bin/', 'tasks/examples', 'tasks/demo', 'tasks/skills-demo']

/** A cited path, with the line that cites it. */
interface Citation {
  readonly path: string
  readonly line: number
}

/** Every relative Markdown link target of `markdown` (a file at `file`, relative to the package root), resolved. */
function linkedPaths(markdown: string, file: string): Citation[] {
  const cited: Citation[] = []
  markdown.split('\n').forEach((text, index) => {
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!.split('#')[0]!
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      cited.push({ path: path.posix.normalize(path.posix.join(path.posix.dirname(file), target)).replace(/\/$/, ''), line: index + 1 })
    }
  })
  return cited
}

/** Every path in backticks under one of the repository's own folders (globs and placeholders left out). */
function repositoryPaths(markdown: string): Citation[] {
  const cited: Citation[] = []
  markdown.split('\n').forEach((text, index) => {
    for (const match of text.matchAll(/`([^`\s]+)`/g)) {
      const token = match[1]!.replace(/^\.\//, '')
      if (/[*{}<>?[\]]/.test(token)) continue
      if (REPOSITORY_FOLDERS.some((folder) => token === folder.replace(/\/$/, '') || token.startsWith(folder))) {
        cited.push({ path: token.replace(/\/$/, ''), line: index + 1 })
      }
    }
  })
  return cited
}

/** The citations of `cited` that name neither a file of the tarball nor a folder holding one. */
function missing(cited: readonly Citation[], files: readonly string[], file: string): string[] {
  return cited.filter(({ path: cite }) => !files.some((entry) => entry === cite || entry.startsWith(`${cite}/`))).map(({ path: cite, line }) => `${file}:${line}: ${cite}`)
}

let files: string[]

beforeAll(async () => {
  const packed = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot })
  files = (JSON.parse(packed.stdout) as [{ files: { path: string }[] }])[0].files.map((entry) => entry.path)
}, 120_000)

describe('the docs the package ships cite only what it ships', () => {
  test('the tarball holds the README and the docs', () => {
    expect(files).toContain('README.md')
    expect(files).toContain('docs/install.md')
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('src/'))).toEqual([])
  })

  test("the shipped README's first commands are a user's: install, init, the example", () => {
    expect(firstCommands(shippedReadme()).map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual(['npm install --save-dev', 'npx task-outcome init', 'npx vitest run'])
    expect(firstCommands(shippedReadme())[2]).toBe('npx vitest run --project example')
  })

  test('every relative link of the README and of every shipped doc is in the tarball', async () => {
    const docs = files.filter((file) => file.endsWith('.md') && (file === 'README.md' || file.startsWith('docs/')))
    expect(docs.length).toBeGreaterThan(5)
    const problems: string[] = []
    for (const doc of docs) {
      const text = doc === 'README.md' ? shippedReadme() : await readFile(path.join(repoRoot, doc), 'utf8')
      problems.push(...missing(linkedPaths(text, doc), files, doc))
    }
    expect(problems).toEqual([])
  })

  test("every path of the repository's own folders the README cites is in the tarball", async () => {
    const readme = shippedReadme()
    expect(repositoryPaths(readme).length).toBeGreaterThan(0)
    expect(missing(repositoryPaths(readme), files, 'README.md')).toEqual([])
  })

  test('a cited path missing from the tarball is named with its line', () => {
    const readme = 'Install it.\nThe schema is in `src/agents/command/result.ts`, the tasks in [tasks/examples](tasks/examples/).\nSee [design](docs/gone.md#layers).\n'
    expect(missing([...linkedPaths(readme, 'README.md'), ...repositoryPaths(readme)], files, 'README.md').sort()).toEqual([
      'README.md:2: src/agents/command/result.ts',
      'README.md:3: docs/gone.md',
    ])
    expect(missing(linkedPaths('[the workflow](ci/github-actions.yml), [up](../README.md), [gone](./nowhere.md)', 'docs/vitest.md'), files, 'docs/vitest.md')).toEqual([
      'docs/vitest.md:1: docs/nowhere.md',
    ])
  })
})
