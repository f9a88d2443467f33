#!/usr/bin/env node
// `npm run mutate [-- <stryker options>]`: runs Stryker (stryker.config.mjs), then reads its JSON report and
// prints each mutated file's mutation score, failing when one is under the floor (85%). A surviving mutant
// either gets a test or a line in docs/mutation.md saying why it is equivalent.
// `npm run mutate -- --changed <base>` mutates only the listed files changed since <base> (committed or not), and those
// whose fast tests changed; without
// `--testFiles`, only those with fast tests in scripts/mutation-tests.mjs, against those tests (the others are named).
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import config from '../stryker.config.mjs'
import { mutationTargets } from './mutation-targets.mjs'
import { fastTestsFor, filesTestedBy } from './mutation-tests.mjs'

const FLOOR = 85
const REPORT = 'reports/mutation/mutation.json'
const root = path.resolve(import.meta.dirname, '..')
const stryker = path.join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js')

/** The options for Stryker, `--changed <base>` turned into `--mutate <the listed files changed since base>`; null: none changed. */
function strykerArgs(args) {
  const at = args.indexOf('--changed')
  if (at === -1) return args
  const base = args[at + 1]
  if (base === undefined || base.startsWith('-')) fail('npm run mutate -- --changed <base>: name the commit or branch to compare with (e.g. main).')
  const since = spawnSync('git', ['merge-base', base, 'HEAD'], { cwd: root, encoding: 'utf8' })
  if (since.status !== 0) fail(`npm run mutate -- --changed ${base}: git finds no common ancestor of ${base} and HEAD (${since.stderr.trim()}).`)
  const diff = spawnSync('git', ['diff', '--name-only', '--diff-filter=d', since.stdout.trim()], { cwd: root, encoding: 'utf8' })
  if (diff.status !== 0) fail(`npm run mutate -- --changed ${base}: git diff failed (${diff.stderr.trim()}).`)
  const paths = diff.stdout.split('\n').filter(Boolean)
  const changed = [...new Set([...mutationTargets(paths, config.mutate), ...filesTestedBy(paths)])]
  const rest = [...args.slice(0, at), ...args.slice(at + 2)]
  let files = changed
  if (!rest.includes('--testFiles')) {
    const fast = fastTestsFor(changed)
    for (const file of fast.unmapped) console.log(`not mutating ${file}: no fast tests named for it in scripts/mutation-tests.mjs (name them with --testFiles to mutate it).`)
    files = fast.mapped
    if (files.length > 0) rest.push('--testFiles', fast.testFiles.join(','))
  }
  if (files.length === 0) return null
  console.log(`mutating the ${files.length} listed file(s) changed, or whose fast tests changed, since ${base}: ${files.join(' ')}`)
  return [...rest, '--mutate', files.join(',')]
}

function fail(message) {
  console.error(message)
  process.exit(2)
}

const args = strykerArgs(process.argv.slice(2))
if (args === null) {
  console.log('nothing to mutate: no file of the mutation list (stryker.config.mjs) changed, or only files without fast tests (named above).')
  process.exit(0)
}
const run = spawnSync(process.execPath, [stryker, 'run', ...args], { cwd: root, stdio: 'inherit' })
if (run.status !== 0) process.exit(run.status ?? 1)

/** Killed, timed out and (with ignoreStatic) uncovered-but-static count as Stryker counts them: detected over valid. */
function score(mutants) {
  const counted = mutants.filter((m) => !['CompileError', 'RuntimeError', 'Ignored', 'Pending'].includes(m.status))
  const detected = counted.filter((m) => m.status === 'Killed' || m.status === 'Timeout')
  return { detected: detected.length, valid: counted.length, percent: counted.length === 0 ? 100 : (100 * detected.length) / counted.length }
}

const report = JSON.parse(readFileSync(path.join(root, REPORT), 'utf8'))
const rows = Object.entries(report.files).map(([file, entry]) => ({
  file,
  ...score(entry.mutants),
  survivors: entry.mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage'),
}))
const under = rows.filter((row) => row.percent < FLOOR)
console.log(`\nmutation score per file (floor ${FLOOR}%; ${REPORT}, reports/mutation/mutation.html):`)
for (const row of rows) console.log(`${row.percent < FLOOR ? 'UNDER' : 'ok   '} ${row.percent.toFixed(1).padStart(5)}%  ${row.detected}/${row.valid}  ${row.file}`)
for (const row of under) {
  for (const m of row.survivors)
    console.log(
      `  ${row.file}:${m.location.start.line}: ${m.mutatorName} ${m.status.toLowerCase()}${m.replacement === undefined ? '' : `: ${JSON.stringify(m.replacement).slice(0, 80)}`}`,
    )
}
if (under.length > 0) {
  console.error(`${under.length} file(s) under ${FLOOR}%: give each surviving mutant a test, or a line in docs/mutation.md saying why it is equivalent.`)
  process.exit(1)
}
