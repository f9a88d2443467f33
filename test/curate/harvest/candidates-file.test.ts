import { mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ProblemsError, SpecError } from '../../../src/errors.ts'
import { appendRepository, formatCandidatesFile, readCandidatesFile, sourceOf, type SingleRepositoryFile } from '../../../src/curate/harvest/candidates-file.ts'

const rule = { subject: '^fix', since: null, source: ['src/**'], tests: ['test/**'], max_source_files: 3 }

/** One repository's harvest with one candidate `fix` and one rejected commit. */
function harvested(repo: string, fix: string, extra: Partial<SingleRepositoryFile> = {}): SingleRepositoryFile {
  const candidate = {
    fix,
    base: 'b'.repeat(40),
    date: '2026-07-01T00:00:00Z',
    subject: `fix ${repo}`,
    gold_files: ['src/a.js'],
    test_files: ['test/a.test.js'],
    FAIL_TO_PASS: ['a'],
    PASS_TO_PASS: [],
    not_passing_after: [],
    notes: [],
    log: `candidates.logs/${fix.slice(0, 12)}.log`,
  }
  return {
    format: 1,
    repo,
    rev: 'HEAD',
    rule,
    test_command: `node --test {tests} # ${repo}`,
    scanned: 3,
    matched: 2,
    candidates: [candidate],
    dropped: [],
    rejected: [{ fix: 'e'.repeat(40), date: '2026-07-01T00:00:00Z', subject: 'fix docs', reason: 'changes no source file' }],
    ...extra,
  }
}

async function written(data: unknown): Promise<string> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'task-outcome-candidates-')), 'candidates.json')
  await writeFile(file, typeof data === 'string' ? data : JSON.stringify(data))
  return file
}

describe('a candidates file of one repository', () => {
  it('reads as before: one source, named by its folder, with the rule and test command the file records', async () => {
    const file = await written(formatCandidatesFile(harvested('../repos/widgets.bundle', 'a'.repeat(40))))
    const loaded = await readCandidatesFile(file)
    expect(loaded.sources).toEqual([
      { name: 'widgets', repo: path.resolve(path.dirname(file), '../repos/widgets.bundle'), rev: 'HEAD', rule, test_command: 'node --test {tests} # ../repos/widgets.bundle' },
    ])
    expect(sourceOf(loaded, loaded.data.candidates[0]!).name).toBe('widgets')
  })

  it('takes the name harvest --name gave', async () => {
    const loaded = await readCandidatesFile(await written(harvested('w', 'a'.repeat(40), { repository: 'upstream' })))
    expect(loaded.sources.map((source) => source.name)).toEqual(['upstream'])
  })

  it("refuses an entry naming another repository, with the entry's field", async () => {
    const data = harvested('widgets', 'a'.repeat(40))
    const error = await readCandidatesFile(await written({ ...data, candidates: [{ ...data.candidates[0], repository: 'gadgets' }] })).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ProblemsError)
    expect((error as ProblemsError).problems).toEqual([expect.objectContaining({ field: 'candidates.0.repository', message: expect.stringContaining('"widgets" only') })])
  })
})

describe('appending a repository to a candidates file', () => {
  const dir = '/sets/pilot'
  const first = harvested('../../repos/widgets', 'a'.repeat(40))
  const second = harvested('../../repos/gadgets.bundle', 'c'.repeat(40))

  it('gives a file of both: each repository with how it was harvested, every entry naming its repository, nothing of the first changed', () => {
    const both = appendRepository(first, second, dir)
    expect('repositories' in both && both.repositories.map(({ name, repo, test_command, scanned }) => ({ name, repo, test_command, scanned }))).toEqual([
      { name: 'widgets', repo: first.repo, test_command: first.test_command, scanned: 3 },
      { name: 'gadgets', repo: second.repo, test_command: second.test_command, scanned: 3 },
    ])
    expect(both.candidates).toEqual([
      { ...first.candidates[0], repository: 'widgets' },
      { ...second.candidates[0], repository: 'gadgets' },
    ])
    expect(both.rejected.map((entry) => entry.repository)).toEqual(['widgets', 'gadgets'])
  })

  it('round-trips through the file, and a third repository appends to a file of several', async () => {
    const both = appendRepository(first, second, dir)
    const three = appendRepository(both, harvested('../../repos/tools', 'd'.repeat(40)), dir)
    const file = await written(formatCandidatesFile(three))
    const loaded = await readCandidatesFile(file)
    expect(loaded.sources.map((source) => source.name)).toEqual(['widgets', 'gadgets', 'tools'])
    expect(loaded.data.candidates.map((candidate) => sourceOf(loaded, candidate).test_command)).toEqual([
      first.test_command,
      second.test_command,
      'node --test {tests} # ../../repos/tools',
    ])
  })

  it('refuses a repository name the file already holds, and asks for --name', () => {
    expect(() => appendRepository(first, harvested('../other/widgets', 'c'.repeat(40)), dir)).toThrow(SpecError)
    expect(() => appendRepository(first, harvested('../other/widgets', 'c'.repeat(40)), dir)).toThrow(/named "widgets".*--name/)
    expect(appendRepository(first, harvested('../other/widgets', 'c'.repeat(40), { repository: 'widgets-fork' }), dir).candidates.map((c) => c.repository)).toEqual([
      'widgets',
      'widgets-fork',
    ])
  })

  it('refuses a fix commit the file already holds (a fork harvested twice)', () => {
    expect(() => appendRepository(first, harvested('../../repos/fork', 'a'.repeat(40)), dir)).toThrow(
      /commit a{40} is already in the candidates file \(from repository "widgets"\)/,
    )
  })

  it('a file of several refuses an entry without a repository, or naming none of them, and a name given twice', async () => {
    const both = appendRepository(first, second, dir) as Extract<ReturnType<typeof appendRepository>, { repositories: unknown }>
    const { repository: _dropped, ...unnamed } = both.candidates[1]!
    const broken = { ...both, repositories: [...both.repositories, { ...both.repositories[0]! }], candidates: [both.candidates[0], unnamed] }
    const error = await readCandidatesFile(await written(broken)).catch((caught: unknown) => caught)
    expect((error as ProblemsError).problems.map((problem) => problem.field)).toEqual(['repositories', 'candidates.1.repository'])
  })
})
