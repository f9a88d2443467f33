import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRule } from '../../../src/curate/harvest/rule.ts'
import { scanHistory } from '../../../src/curate/harvest/scan.ts'
import { readerGit } from '../../../src/workspace/repository.ts'
import { buildRepo } from '../../helpers/throwaway.ts'

// One pass over a real history whose paths hold spaces, quotes and non-ASCII letters, with a rename and a merge.
let repo: { dir: string; commits: string[] }
beforeAll(async () => {
  repo = await buildRepo([
    { subject: 'init', files: { 'src/a b.js': '1\n', 'test/a b.test.js': '1\n', 'src/old.js': 'x\n'.repeat(20) } },
    { subject: 'fix: spaces, "quotes" and ünïcode', files: { 'src/a b.js': '2\n', 'src/ünï "q".js': '1\n', 'test/a b.test.js': '2\n' } },
    { subject: 'fix: a rename is a delete and an add', files: { 'src/old.js': null, 'src/new.js': 'x\n'.repeat(20), 'test/a b.test.js': '3\n' } },
  ])
  const git = readerGit(repo.dir, { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' })
  await git.raw(['checkout', '-q', '-b', 'side', repo.commits[0]!])
  await git.raw(['commit', '-q', '--allow-empty', '-m', 'fix: on a side branch'])
  await git.raw(['checkout', '-q', 'main'])
  await git.raw(['merge', '-q', '--no-ff', '-m', 'fix: merge the side branch', 'side'])
})
afterAll(async () => {
  await rm(repo.dir, { recursive: true, force: true })
})

describe('the candidate scan', () => {
  it('reads every commit once, oldest first, with exact paths', async () => {
    const scan = await scanHistory(readerGit(repo.dir), buildRule({ source: ['src/**/*.js'], tests: ['test/**/*.test.js'] }))
    expect(scan.scanned).toBe(5)
    expect(scan.matched).toBe(4)
    expect(scan.eligible.map((c) => [c.subject, c.roles.sourceFiles, c.roles.testFiles])).toEqual([
      ['fix: spaces, "quotes" and ünïcode', ['src/a b.js', 'src/ünï "q".js'], ['test/a b.test.js']],
      ['fix: a rename is a delete and an add', ['src/new.js', 'src/old.js'], ['test/a b.test.js']],
    ])
    expect(scan.eligible[0]!.base).toBe(repo.commits[0])
    expect(Object.fromEntries(scan.rejected.map((r) => [r.subject, r.reason]))).toEqual({
      'fix: on a side branch': expect.stringMatching(/^changes no source file/),
      'fix: merge the side branch': 'a merge commit has no single parent to start from',
    })
  })
})
