import { readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GitFixMetadataSchema } from '../../src/tasks/metadata.ts'
import { PREPARE_COMMANDS } from '../../src/workspace/lockfiles.ts'
import { createExperimentFixture, type ExperimentFixture } from '../helpers/experiment-fixture.ts'
import { fillPackageManagerCaches, type PackageManagerCaches } from '../helpers/package-manager-caches.ts'
import { cli, kebabHistory, VITEST_COMMAND, writeKebabPrompts } from '../helpers/kebab-repository.ts'
import { buildRepo } from '../helpers/throwaway.ts'
import { preparedDrift } from '../helpers/prepared-drift.ts'
import { pinnedVitestVersion } from '../helpers/vitest-lockfile.ts'

// The README's Vitest recipe on the repositories people have: one locked by pnpm, one by yarn berry, generated here
// and tested by this repository's Vitest. harvest is given no --prepare (auto: each parent's lockfile picks its
// package manager, the pinned CLI installs from the cache the user filled once, without network), select walks with
// --jobs 4 and --jobs 1 to the same task set, validate passes, and the real Claude Code CLI's runs against the
// scripted model are judged and recorded with the test runner; afterwards every prepared folder is byte for byte what its manifest says, and no command said
// it was not.

let scratch: string
let caches: PackageManagerCaches
const saved: Record<string, string | undefined> = {}

beforeAll(async () => {
  scratch = await import('node:fs/promises').then((fs) => fs.mkdtemp(path.join(os.tmpdir(), 'pm-repos-')))
  caches = await fillPackageManagerCaches(path.join(scratch, 'caches'))
  // Every command below (and the Vitest runs) finds the caches, and a template cache of this test's own.
  for (const [name, value] of Object.entries({ ...caches.env, TASK_OUTCOME_TEMPLATES: path.join(scratch, 'templates') })) {
    saved[name] = process.env[name]
    process.env[name] = value
  }
}, 300_000)

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  await rm(scratch, { recursive: true, force: true })
})

const repositories = [
  { manager: 'pnpm', lockfiles: () => ({ 'pnpm-lock.yaml': caches.pnpmLock }), prepare: PREPARE_COMMANDS.pnpm, inputs: ['package.json', 'pnpm-lock.yaml'] },
  {
    manager: 'yarn berry',
    lockfiles: () => ({ 'yarn.lock': caches.yarnBerryLock, '.yarnrc.yml': caches.yarnrc }),
    prepare: PREPARE_COMMANDS['yarn berry'],
    inputs: ['package.json', 'yarn.lock', '.yarnrc.yml'],
  },
] as const

for (const { manager, lockfiles, prepare, inputs } of repositories) {
  describe(`a ${manager} repository tested by Vitest, through harvest, select, validate and runs`, () => {
    let fixture: ExperimentFixture
    let repo: { dir: string; commits: string[] }
    const outputs: string[] = []

    beforeAll(async () => {
      repo = await buildRepo(kebabHistory({ 'package.json': caches.packageJson, ...lockfiles() }), 'pm-repo-')
      fixture = await createExperimentFixture([])
    }, 60_000)

    afterAll(async () => {
      await rm(repo.dir, { recursive: true, force: true })
      await rm(fixture.root, { recursive: true, force: true })
    })

    it('harvest, with no --prepare, finds both fixes from the lockfile at each parent', async () => {
      const harvest = await cli([
        'harvest',
        '--repo',
        repo.dir,
        '--out',
        path.join(fixture.setDir, 'candidates.json'),
        '--source',
        'src/**/*.js',
        '--tests',
        'test/**/*.test.js',
        '--test-command',
        VITEST_COMMAND,
      ])
      outputs.push(harvest.all)
      expect(harvest.exitCode, harvest.all).toBe(0)
      expect(harvest.all).toMatch(new RegExp(`candidate ${repo.commits[1]!.slice(0, 10)}  1 FAIL_TO_PASS  1 PASS_TO_PASS`))
      expect(harvest.all).toMatch(new RegExp(`candidate ${repo.commits[2]!.slice(0, 10)}  1 FAIL_TO_PASS  2 PASS_TO_PASS`))
    }, 300_000)

    it("select with --jobs 4 writes the same task set as with --jobs 1, each task naming its lockfile's recipe", async () => {
      await writeKebabPrompts(fixture.setDir, repo.commits)
      const sets: Record<string, string>[] = []
      for (const [jobs, out] of [
        ['4', path.join(fixture.root, 'tasks', 'four')],
        ['1', fixture.setDir],
      ] as const) {
        const select = await cli([
          'select',
          '--candidates',
          path.join(fixture.setDir, 'candidates.json'),
          '--prompts',
          path.join(fixture.setDir, 'prompts'),
          '--out',
          out,
          '--seed',
          '1',
          '--count',
          '2',
          '--jobs',
          jobs,
        ])
        outputs.push(select.all)
        expect(select.exitCode, select.all).toBe(0)
        const set: Record<string, string> = {}
        for (const folder of (await readdir(out)).filter((name) => /^\d{3}-/.test(name)).sort()) set[folder] = await readFile(path.join(out, folder, 'metadata.json'), 'utf8')
        sets.push(set)
      }
      expect(Object.keys(sets[0]!)).toHaveLength(2)
      expect(sets[0]).toEqual(sets[1])
      for (const text of Object.values(sets[1]!)) {
        const metadata = GitFixMetadataSchema.parse(JSON.parse(text))
        expect(metadata.dependencies?.prepare).toBe(prepare)
        expect(Object.keys(metadata.dependencies?.inputs ?? {}).sort()).toEqual([...inputs].sort())
      }
    }, 600_000)

    it('validate: gold solves each task, noop none', async () => {
      const validate = await cli(['validate', fixture.setDir])
      outputs.push(validate.all)
      expect(validate.all).toMatch(/001-\S+\s+solved\s+unsolved/)
      expect(validate.all).toMatch(/002-\S+\s+solved\s+unsolved/)
    }, 600_000)

    it('runs the real agent CLI against the scripted model, judged with the prepared Vitest and recorded with its version', async () => {
      const [folder] = (await readdir(fixture.setDir)).filter((name) => /^\d{3}-/.test(name)).sort()
      await fixture.writeExperiment({
        name: 'fixture',
        stage: 'pilot',
        // No wrong first edit: every run solves, so a run the prepared Vitest could not judge shows as unsolved.
        agent: { kind: 'claude-code', model: 'claude-sonnet-4-5', options: { scriptedModel: { wrongEditRate: 0 } } },
        arms: { baseline: {}, again: {} },
        control: 'baseline',
        seeds: 1,
        timeoutSeconds: 120,
        oracleTimeoutSeconds: 120,
        env: { set: { CLAUDE_CODE_MAX_RETRIES: '1' } },
        tasks: { include: [folder] },
      })
      const result = await fixture.vitest()
      outputs.push(result.all)
      expect(result.exitCode, result.all).toBe(0)
      const runs = await fixture.runs()
      expect(runs).toHaveLength(2)
      for (const run of runs) {
        expect(run, JSON.stringify(run)).toMatchObject({
          outcome: 'solved',
          changedFiles: ['src/kebab.js'],
          versions: { model: 'scripted:claude-sonnet-4-5', testRunner: `vitest ${pinnedVitestVersion()}` },
        })
        expect(run.oracle).toMatchObject({ failToPass: { passed: 1, total: 1 }, failing: [] })
      }
    }, 600_000)

    it('leaves every prepared folder as its manifest says, and no command found one changed', async () => {
      expect(await preparedDrift(path.join(scratch, 'templates'))).toEqual([])
      for (const output of outputs) expect(output).not.toMatch(/no longer matches its manifest/)
    })
  })
}
