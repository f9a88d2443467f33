import { mkdir, rename, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import seedrandom from 'seedrandom'
import { Bench } from 'tinybench'
import { buildRule } from '../../src/curate/harvest/rule.ts'
import { scanHistory } from '../../src/curate/harvest/scan.ts'
import { readerGit } from '../../src/workspace/repository.ts'
import { benchRows, printBenchTable } from './table.ts'

/**
 * The candidate scan on a large history: a generated repository of 5,000
 * files and 2,000 commits (about one in six a "fix:" commit). Baseline in the
 * same run: the `git log --name-status` the scan is built on, run alone, so
 * the ratio is what the scan's parsing and rule matching add to git's own
 * walk of the history.
 */

/** The size of the generated repository (the issue's benchmark). */
export const GENERATED = { files: 5_000, commits: 2_000 } as const

const SOURCE_FILES = 4_000

function sourcePath(index: number): string {
  return `src/mod${String(Math.floor(index / 100)).padStart(2, '0')}/file${String(index).padStart(4, '0')}.js`
}

function testPath(index: number): string {
  return `test/mod${String(Math.floor(index / 100)).padStart(2, '0')}/file${String(index).padStart(4, '0')}.test.js`
}

function fileContent(file: string, version: number): string {
  return `// ${file}, version ${version}\nexport function f${version}(a, b) {\n  return a + b + ${version}\n}\n`
}

/** The `git fast-import` stream of the generated history (seeded, so every run generates the same repository). */
function fastImportStream(): string {
  const random = seedrandom('bench-harvest')
  const parts: string[] = []
  const inline = (file: string, content: string) => `M 100644 inline ${file}\ndata ${Buffer.byteLength(content)}\n${content}\n`
  const commit = (index: number, message: string, body: string) => {
    const when = Date.parse('2026-01-01T00:00:00Z') / 1000 + index * 3600
    parts.push(
      `commit refs/heads/main\nmark :${index + 1}\nauthor Bench <bench@example.com> ${when} +0000\ncommitter Bench <bench@example.com> ${when} +0000\n` +
        `data ${Buffer.byteLength(message)}\n${message}\n${index > 0 ? `from :${index}\n` : ''}${body}\n`,
    )
  }
  let initial = ''
  for (let i = 0; i < SOURCE_FILES; i++) initial += inline(sourcePath(i), fileContent(sourcePath(i), 0))
  for (let i = 0; i < GENERATED.files - SOURCE_FILES; i++) initial += inline(testPath(i), fileContent(testPath(i), 0))
  commit(0, 'Initial import', initial)
  for (let c = 1; c < GENERATED.commits; c++) {
    const roll = random()
    const pick = (count: number, max: number) => Array.from({ length: count }, () => Math.floor(random() * max))
    let message: string
    let files: string[]
    if (roll < 0.15) {
      message = `fix: problem number ${c}`
      files = [...pick(1 + Math.floor(random() * 3), SOURCE_FILES).map(sourcePath), ...pick(1, GENERATED.files - SOURCE_FILES).map(testPath)]
    } else if (roll < 0.18) {
      message = `fix: wide change number ${c}`
      files = pick(5, SOURCE_FILES).map(sourcePath)
    } else {
      message = `${random() < 0.5 ? 'feat' : 'chore'}: change number ${c}`
      files = pick(1 + Math.floor(random() * 6), SOURCE_FILES).map(sourcePath)
    }
    commit(c, message, [...new Set(files)].map((file) => inline(file, fileContent(file, c))).join(''))
  }
  return parts.join('')
}

/**
 * The generated repository (built once with `git fast-import`, then kept in
 * the temp folder for later runs and for the workspace benchmark).
 */
export async function generatedRepository(): Promise<string> {
  const dir = path.join(os.tmpdir(), `task-outcome-bench-repo-${GENERATED.files}-${GENERATED.commits}`)
  if (
    await stat(path.join(dir, '.git')).then(
      () => true,
      () => false,
    )
  )
    return dir
  const building = `${dir}.building-${process.pid}`
  await rm(building, { recursive: true, force: true })
  await mkdir(building, { recursive: true })
  const git = readerGit(building)
  await git.raw(['init', '-q', '-b', 'main'])
  await execa('git', ['fast-import', '--quiet'], { cwd: building, input: fastImportStream(), env: { GIT_CONFIG_GLOBAL: '/dev/null' } })
  await git.raw(['reset', '-q', '--hard', 'main'])
  await rename(building, dir).catch(async () => rm(building, { recursive: true, force: true }))
  return dir
}

export default async function run(): Promise<void> {
  const started = performance.now()
  const repo = await generatedRepository()
  console.log(`repository: ${GENERATED.files} files, ${GENERATED.commits} commits at ${repo} (ready in ${((performance.now() - started) / 1000).toFixed(1)} s)`)
  const git = readerGit(repo)
  const rule = buildRule({ source: ['src/**/*.js'], tests: ['test/**/*.test.js'] })
  const sample = await scanHistory(git, rule)
  console.log(`scan: ${sample.scanned} commits, ${sample.matched} subjects match, ${sample.eligible.length} eligible, ${sample.rejected.length} rejected`)

  const bench = new Bench({ time: 3000, iterations: 5, warmupIterations: 1 })
  bench
    .add('git log --name-status alone', async () => {
      await git.raw(['log', '-z', '--no-renames', '--format=%x1e%H%x00%P%x00%cI%x00%s', '--name-status', 'HEAD', '--'])
    })
    .add('candidate scan (git log + parse + rule)', async () => {
      await scanHistory(git, rule)
    })
  await bench.run()
  printBenchTable(`Candidate scan over ${GENERATED.commits} commits of a ${GENERATED.files}-file repository`, benchRows(bench))
}
