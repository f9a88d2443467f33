import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeTemplate } from '../../src/workspace/template.ts'
import { repoRoot } from '../helpers/experiment-fixture.ts'
import { buildRepo, NODE_TEST_COMMAND } from '../helpers/throwaway.ts'

// The confirmatory draw through the real CLI on a throwaway repository tested by the real `node --test`: six
// fixes, one excluded before the walk, one whose test is flaky (it fails before the fix once a file outside the
// repository says "select", after the first harvest, so every second harvest disagrees with the first; the test
// commands run in the oracle's sandbox, which sees that file only because its folder is on PATH, read-only). The pilot draws two tasks; the confirmatory draw,
// by the same rule and seed with --exclude-tasks-of the pilot, must use none of them and still apply the
// exclusions and the flaky check.
const cli = (args: readonly string[]) =>
  execa(process.execPath, ['bin/task-outcome.js', ...args], { cwd: repoRoot, reject: false, env: { PATH: `${path.dirname(phase)}${path.delimiter}${process.env.PATH ?? ''}` } })
const HEAD = "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\n"
const MODULES = ['alpha', 'bravo', 'charlie', 'delta', 'echo']

let scratch: string
let phase: string
let repo: { dir: string; commits: string[] }
let candidates: string
/** Fix commit of each module (and of the flaky one), by name. */
const fixOf = new Map<string, string>()

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'confirmatory-'))
  await mkdir(path.join(scratch, 'phase-bin'))
  phase = path.join(scratch, 'phase-bin', 'phase')
  await writeFile(phase, 'harvest')
  const initial: Record<string, string> = { 'package.json': '{"type":"module"}\n' }
  for (const name of [...MODULES, 'flaky']) {
    initial[`src/${name}.js`] = `export const ${name} = (s) => s\n`
    initial[`test/${name}.test.js`] = `import { ${name} } from '../src/${name}.js'\n${HEAD}test('${name} keeps empty', () => assert.equal(${name}(''), ''))\n`
  }
  const fixes = MODULES.map((name) => ({
    subject: `fix: ${name} leaves text as it was`,
    files: {
      [`src/${name}.js`]: `export const ${name} = (s) => s.toUpperCase()\n`,
      [`test/${name}.test.js`]: `import { ${name} } from '../src/${name}.js'\n${HEAD}test('${name} keeps empty', () => assert.equal(${name}(''), ''))\ntest('${name} uppers', () => assert.equal(${name}('ab'), 'AB'))\n`,
    },
  }))
  const flakyTest =
    `import { readFileSync } from 'node:fs'\nimport { flaky } from '../src/flaky.js'\n${HEAD}` +
    `const selecting = readFileSync(${JSON.stringify(phase)}, 'utf8') === 'select'\n` +
    `test('sometimes', () => assert.ok(!selecting || flaky('ab') === 'AB'))\n` +
    `test('flaky uppers', () => assert.equal(flaky('ab'), 'AB'))\n`
  repo = await buildRepo(
    [
      { subject: 'Initial', files: initial },
      ...fixes,
      { subject: 'fix: flaky leaves text as it was', files: { 'src/flaky.js': 'export const flaky = (s) => s.toUpperCase()\n', 'test/flaky.test.js': flakyTest } },
    ],
    'confirmatory-repo-',
  )
  for (const [index, name] of [...MODULES, 'flaky'].entries()) fixOf.set(name, repo.commits[index + 1]!)

  const pilot = path.join(scratch, 'tasks', 'pilot')
  candidates = path.join(pilot, 'candidates.json')
  const harvest = await cli([
    'harvest',
    '--repo',
    repo.dir,
    '--out',
    candidates,
    '--source',
    'src/**/*.js',
    '--tests',
    'test/**/*.test.js',
    '--test-command',
    NODE_TEST_COMMAND,
    '--jobs',
    '1',
  ])
  expect(harvest.exitCode, harvest.stderr).toBe(0)
  await writeFile(phase, 'select')
  await mkdir(path.join(pilot, 'prompts'))
  for (const [name, fix] of fixOf)
    await writeFile(
      path.join(pilot, 'prompts', `${fix.slice(0, 8)}.md`),
      `Turning text into capitals with ${name === 'flaky' ? 'the last helper' : `helper number ${MODULES.indexOf(name) + 1}`} gives it back unchanged.\n`,
    )
  await writeFile(
    path.join(pilot, 'exclusions.json'),
    JSON.stringify({ exclusions: [{ commit: fixOf.get('charlie')!.slice(0, 10), reason: 'a', why: 'its failing test checks the wording of an error message only' }] }, null, 2),
  )
}, 240_000)

afterAll(async () => {
  for (const commit of repo.commits.slice(0, -1)) await removeTemplate(repo.dir, commit)
  await rm(repo.dir, { recursive: true, force: true })
  await rm(scratch, { recursive: true, force: true })
})

async function fixesOf(set: string): Promise<string[]> {
  const selection = JSON.parse(await readFile(path.join(set, 'selection.json'), 'utf8')) as { walk: Array<{ fix: string; status: string }> }
  return selection.walk.filter((entry) => entry.status === 'selected').map((entry) => entry.fix)
}

describe('the confirmatory draw', () => {
  it('select --exclude-tasks-of tasks/pilot draws by the same rule and seed from candidates the pilot did not use: no task in common, exclusions and the flaky check applied', async () => {
    const pilot = path.join(scratch, 'tasks', 'pilot')
    const confirmatory = path.join(scratch, 'tasks', 'confirmatory')
    const drawn = await cli(['select', '--candidates', candidates, '--out', pilot, '--seed', '20261014', '--count', '2', '--jobs', '1'])
    expect(drawn.exitCode, drawn.stderr).toBe(0)
    const pilotFixes = await fixesOf(pilot)
    expect(pilotFixes).toHaveLength(2)

    const plan = await cli([
      'select',
      '--candidates',
      candidates,
      '--out',
      confirmatory,
      '--seed',
      '20261014',
      '--exclusions',
      path.join(pilot, 'exclusions.json'),
      '--prompts',
      path.join(pilot, 'prompts'),
      '--exclude-tasks-of',
      pilot,
      '--plan',
    ])
    expect(plan.exitCode, plan.stderr).toBe(0)
    for (const fix of pilotFixes) expect(plan.stdout).toMatch(new RegExp(`${fix.slice(0, 12)}  used by ${pilot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))

    const result = await cli([
      'select',
      '--candidates',
      candidates,
      '--out',
      confirmatory,
      '--seed',
      '20261014',
      '--count',
      '5',
      '--jobs',
      '1',
      '--exclusions',
      path.join(pilot, 'exclusions.json'),
      '--prompts',
      path.join(pilot, 'prompts'),
      '--exclude-tasks-of',
      pilot,
    ])
    expect(result.exitCode, result.stderr).toBe(0)
    const confirmatoryFixes = await fixesOf(confirmatory)
    expect(confirmatoryFixes.filter((fix) => pilotFixes.includes(fix))).toEqual([])
    expect([...pilotFixes, ...confirmatoryFixes].sort()).toEqual(['alpha', 'bravo', 'delta', 'echo'].map((name) => fixOf.get(name)!).sort())
    expect(result.stderr).toContain('only 2 of the 5 requested candidate(s) remain after exclusions and the flaky check')

    const selection = JSON.parse(await readFile(path.join(confirmatory, 'selection.json'), 'utf8')) as {
      seed: number
      excludedTaskSets: unknown
      walk: Array<{ fix: string; status: string; reason?: string }>
    }
    expect(selection.seed).toBe(20261014)
    expect(selection.excludedTaskSets).toEqual([{ dir: '../pilot', tasks: 2 }])
    const status = new Map(selection.walk.map((entry) => [entry.fix, entry]))
    expect(status.get(fixOf.get('charlie')!)?.status).toBe('excluded')
    expect(status.get(fixOf.get('flaky')!)?.status).toBe('flaky')
    for (const fix of pilotFixes) expect(status.get(fix)).toMatchObject({ status: 'used', reason: expect.stringContaining(`already a task of ${pilot}`) })

    const pilotWalk = JSON.parse(await readFile(path.join(pilot, 'selection.json'), 'utf8')).walk.map((entry: { fix: string }) => entry.fix)
    expect(selection.walk.map((entry) => entry.fix)).toEqual(pilotWalk)
  })

  it("tasks fixed on or before the training cutoff are flagged in validate's table and in the report", async () => {
    const pilot = path.join(scratch, 'tasks', 'pilot')
    const selection = JSON.parse(await readFile(path.join(pilot, 'selection.json'), 'utf8')) as { tasks: string[] }
    const days = await Promise.all(
      selection.tasks.map(async (task) => ({
        task,
        day: (JSON.parse(await readFile(path.join(pilot, task, 'metadata.json'), 'utf8')) as { fix_date: string }).fix_date.slice(0, 10),
      })),
    )
    const [early, late] = [...days].sort((a, b) => (a.day < b.day ? -1 : 1)) as [{ task: string; day: string }, { task: string; day: string }]
    const outDir = path.join(scratch, 'bench', 'pilot')
    const experiment = {
      name: 'pilot',
      stage: 'pilot',
      agent: { kind: 'noop' },
      arms: { noop: {}, gold: { agent: { kind: 'gold' } } },
      control: 'noop',
      seeds: 1,
      budgetUsd: 0.5,
      timeoutSeconds: 60,
      oracleTimeoutSeconds: 60,
      retries: { attempts: 1, backoffSeconds: 0 },
      output: outDir,
      trainingCutoff: early.day,
    }
    await writeFile(path.join(pilot, 'experiment.ts'), `export default ${JSON.stringify(experiment, null, 2)}\n`)

    const validate = await cli(['validate', pilot])
    expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0)
    expect(validate.stdout).toMatch(new RegExp(`${early.task}\\s+solved\\s+unsolved\\s+yes\\s+FLAGGED \\(fixed ${early.day}\\)`))
    expect(validate.stdout).toMatch(new RegExp(`${late.task}\\s+solved\\s+unsolved\\s+yes\\s+no`))
    expect(validate.stdout).toContain(`fixed on or before cutoff ${early.day}`)
    expect(validate.stdout).toContain(`contamination: 1 task(s) fixed on or before the training cutoff ${early.day} may be in the model's training data: ${early.task}`)

    const run = await execa('npx', ['vitest', 'run', '--config', 'test/fixtures/experiment.config.ts', '--project', 'pilot'], {
      cwd: repoRoot,
      env: { TASK_OUTCOME_EXPERIMENT: path.join(pilot, 'experiment.ts'), TASK_OUTCOME_ROOT: scratch, NO_COLOR: '1', CI: '1' },
      reject: false,
      all: true,
    })
    expect(run.exitCode, run.all).toBe(0)
    expect(run.all).toContain(
      `Contamination: 1 task(s) were fixed on or before the model's training cutoff (${early.day}) and may be in its training data: ${early.task} (fixed ${early.day})`,
    )
    const report = JSON.parse(await readFile(path.join(outDir, 'report.json'), 'utf8'))
    expect(report.contamination).toEqual({ trainingCutoff: early.day, flagged: [{ task: early.task, fixDate: early.day }], undated: [] })
    expect(await readFile(path.join(outDir, 'report.md'), 'utf8')).toContain(`## Contamination`)
  })

  it('a task set to exclude that does not exist is refused, naming it', async () => {
    const result = await cli([
      'select',
      '--candidates',
      candidates,
      '--out',
      path.join(scratch, 'tasks', 'other'),
      '--exclude-tasks-of',
      path.join(scratch, 'tasks', 'nowhere'),
      '--plan',
    ])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('nowhere: no such task set folder')
  })
})
