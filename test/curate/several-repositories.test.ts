import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createExperimentFixture, type ExperimentFixture } from '../helpers/experiment-fixture.ts'
import { cli } from '../helpers/kebab-repository.ts'
import { buildRepo, NODE_TEST_COMMAND } from '../helpers/throwaway.ts'

// A task set drawn from two generated repositories, each tested by the real `node --test`: harvest both into one
// candidates file, select stratified by repository, run gold against noop, and read the breakdown in report.json.
const module = (name: string, body: string) => `export const ${name} = (a, b) => ${body}\n`
const tests = (name: string, cases: string) => `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { ${name} } from '../src/${name}.js'\n${cases}`

/** A repository with two fixes of `name`, each with a test that fails before it. */
function history(name: string, [wrong, half, right]: readonly [string, string, string], [first, second]: readonly [string, string]) {
  return [
    { subject: `Initial ${name}`, files: { 'package.json': '{"type":"module"}\n', [`src/${name}.js`]: module(name, wrong), [`test/${name}.test.js`]: tests(name, '') } },
    { subject: `fix: ${name} of small numbers`, files: { [`src/${name}.js`]: module(name, half), [`test/${name}.test.js`]: tests(name, first) } },
    { subject: `fix: ${name} of negatives`, files: { [`src/${name}.js`]: module(name, right), [`test/${name}.test.js`]: tests(name, first + second) } },
  ]
}

describe('a task set drawn from two repositories', () => {
  let fixture: ExperimentFixture
  let repos: { dir: string; commits: string[] }[]
  let candidatesFile: string
  let selectOutput: string

  beforeAll(async () => {
    repos = [
      await buildRepo(
        history(
          'mul',
          ['a + b', 'a >= 0 && b >= 0 ? a * b : 0', 'a * b'],
          ["test('2 × 3', () => assert.equal(mul(2, 3), 6))\n", "test('-2 × 3', () => assert.equal(mul(-2, 3), -6))\n"],
        ),
        'repo-mul-',
      ),
      await buildRepo(
        history(
          'sub',
          ['a + b', 'a >= 0 && b >= 0 ? a - b : 0', 'a - b'],
          ["test('5 − 3', () => assert.equal(sub(5, 3), 2))\n", "test('-5 − 3', () => assert.equal(sub(-5, 3), -8))\n"],
        ),
        'repo-sub-',
      ),
    ]
    fixture = await createExperimentFixture([], { seeds: 1, timeoutSeconds: 60, oracleTimeoutSeconds: 60 })
    candidatesFile = path.join(fixture.setDir, 'candidates.json')
    const harvest = (repo: string, name: string, extra: readonly string[] = []) =>
      cli([
        'harvest',
        '--repo',
        repo,
        '--out',
        candidatesFile,
        '--name',
        name,
        '--since',
        '2026-01-01',
        '--source',
        'src/**',
        '--tests',
        'test/**',
        '--test-command',
        NODE_TEST_COMMAND,
        ...extra,
      ])
    const first = await harvest(repos[0]!.dir, 'alpha')
    expect(first.exitCode, first.all).toBe(0)
    const again = await harvest(repos[1]!.dir, 'alpha', ['--append'])
    expect(again.exitCode, again.all).not.toBe(0)
    expect(again.all).toMatch(/already holds a repository named "alpha": give this one another name with --name/)
    const second = await harvest(repos[1]!.dir, 'beta', ['--append'])
    expect(second.exitCode, second.all).toBe(0)
    await mkdir(path.join(fixture.setDir, 'prompts'), { recursive: true })
    for (const repo of repos) {
      for (const commit of repo.commits.slice(1)) await writeFile(path.join(fixture.setDir, 'prompts', `${commit.slice(0, 12)}.md`), 'A product or a difference comes out wrong.\n')
    }
    const select = await cli(['select', '--candidates', candidatesFile, '--out', fixture.setDir, '--seed', '7', '--count', '3', '--stratify', 'repository'])
    expect(select.exitCode, select.all).toBe(0)
    selectOutput = select.all
  }, 600_000)

  afterAll(async () => {
    for (const repo of repos ?? []) await rm(repo.dir, { recursive: true, force: true })
    if (fixture !== undefined) await rm(fixture.root, { recursive: true, force: true })
  })

  it('harvest --append keeps both repositories in one candidates file, every candidate naming its repository', async () => {
    const file = JSON.parse(await readFile(candidatesFile, 'utf8'))
    expect(file.repositories.map((repository: { name: string; scanned: number }) => [repository.name, repository.scanned])).toEqual([
      ['alpha', 3],
      ['beta', 3],
    ])
    expect(file.candidates.map((candidate: { fix: string; repository: string }) => [candidate.fix, candidate.repository])).toEqual([
      [repos[0]!.commits[1], 'alpha'],
      [repos[0]!.commits[2], 'alpha'],
      [repos[1]!.commits[1], 'beta'],
      [repos[1]!.commits[2], 'beta'],
    ])
  })

  it('select takes turns between the repositories and writes each task with its repository and its own test command', async () => {
    const selection = JSON.parse(await readFile(path.join(fixture.setDir, 'selection.json'), 'utf8'))
    expect(selection.stratify).toBe('repository')
    const selected = selection.walk.filter((entry: { status: string }) => entry.status === 'selected').map((entry: { repository: string }) => entry.repository)
    expect(selected, selectOutput).toEqual(['alpha', 'beta', 'alpha'])
    for (const task of selection.tasks as string[]) {
      const metadata = JSON.parse(await readFile(path.join(fixture.setDir, task, 'metadata.json'), 'utf8'))
      const repo = repos[metadata.repository === 'alpha' ? 0 : 1]!
      expect(repo.commits).toContain(metadata.fix)
      expect(path.resolve(fixture.setDir, task, metadata.repo)).toBe(repo.dir)
    }
  })

  it('runs end to end: every record names its repository, and report.json breaks both endpoints down per repository', async () => {
    const result = await fixture.vitest()
    expect(result.exitCode, result.all).toBe(0)
    const runs = await fixture.runs()
    expect(runs).toHaveLength(6)
    for (const run of runs) {
      const metadata = JSON.parse(await readFile(path.join(fixture.setDir, run.task as string, 'metadata.json'), 'utf8'))
      expect(run.repository).toBe(metadata.repository)
      expect(run.outcome).toBe(run.arm === 'gold' ? 'solved' : 'unsolved')
    }
    const report = JSON.parse(await readFile(path.join(fixture.outDir, 'report.json'), 'utf8'))
    expect(report.comparisons.map((comparison: { tasks: number }) => comparison.tasks)).toEqual([3])
    expect(report.byRepository).toEqual([
      {
        treatment: 'gold',
        control: 'noop',
        repositories: [
          expect.objectContaining({ repository: 'alpha', tasks: 2, solved: { control: 0, treatment: 2, difference: 2 }, mcnemar: { b: 2, c: 0, p: 0.5 } }),
          expect.objectContaining({ repository: 'beta', tasks: 1, solved: { control: 0, treatment: 1, difference: 1 }, mcnemar: { b: 1, c: 0, p: 1 } }),
        ],
      },
    ])
    expect(await readFile(path.join(fixture.outDir, 'report.md'), 'utf8')).toContain('By repository (exploratory)')
  }, 600_000)
})
