import { existsSync } from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, it } from 'vitest'
import { mutationTargets } from '../../scripts/mutation-targets.mjs'
import { FAST_TESTS, fastTestsFor, filesTestedBy } from '../../scripts/mutation-tests.mjs'

// `npm run mutate -- --changed <base>` mutates the changed files the mutation list names, and nothing else.

/** The mutation list itself (stryker.config.mjs, plain JavaScript without types). */
const config = ((await import(`${'../../stryker.config.mjs'}`)) as { default: { mutate: string[] } }).default

describe('the files a change gives the mutation run', () => {
  it('keeps the changed files of the trust-critical list, in their order, and drops the rest', () => {
    const changed = [
      'src/runs/record.ts',
      'src/oracle/junit/parse.ts',
      'src/runs/chain.ts',
      'docs/mutation.md',
      'src/sandbox/run-sandbox.ts',
      'src/workspace/stat-seal.ts',
      'src/workspace/template.ts',
      'test/runs/chain.test.ts',
    ]
    expect(mutationTargets(changed, config.mutate)).toEqual(['src/oracle/junit/parse.ts', 'src/runs/chain.ts', 'src/sandbox/run-sandbox.ts', 'src/workspace/stat-seal.ts'])
  })

  it('leaves out what a `!` pattern excludes (the sandbox’s index of re-exports), and a name that only resembles a listed one', () => {
    const changed = ['src/oracle/index.ts', 'src/sandbox/index.ts', 'src/sandbox/process/terminate/index.ts', 'src/runs/chainx.ts', 'src/runs/achain.ts', 'src/oracleX/a.ts']
    expect(mutationTargets(changed, config.mutate)).toEqual(['src/oracle/index.ts', 'src/sandbox/process/terminate/index.ts'])
  })

  it('reads `**/` as any depth, none included, and `*` as one path segment', () => {
    expect(mutationTargets(['a/x.ts', 'a/b/c/x.ts', 'a/b/x.js', 'ab/x.ts'], ['a/**/*.ts'])).toEqual(['a/x.ts', 'a/b/c/x.ts'])
    expect(mutationTargets(['a/x.ts', 'a/b/x.ts'], ['a/*.ts'])).toEqual(['a/x.ts'])
  })
})

describe('the fast tests a changed file is mutated against', () => {
  it('takes the files that have fast tests, with the union of their tests, and names the others', () => {
    const map = { 'a.ts': ['a.test.ts', 'shared.test.ts'], 'b.ts': ['shared.test.ts', 'b.test.ts'] }
    expect(fastTestsFor(['b.ts', 'c.ts', 'a.ts'], map)).toEqual({
      mapped: ['b.ts', 'a.ts'],
      testFiles: ['shared.test.ts', 'b.test.ts', 'a.test.ts'],
      unmapped: ['c.ts'],
    })
    expect(fastTestsFor(['toString', 'constructor'], map)).toEqual({ mapped: [], testFiles: [], unmapped: ['toString', 'constructor'] })
  })

  it('mutates a listed file whose fast tests changed, though the file did not: weaker tests lower its score too', () => {
    const map = { 'a.ts': ['a.test.ts', 'shared.test.ts'], 'b.ts': ['b.test.ts'], 'c.ts': ['c.test.ts'] }
    expect(filesTestedBy(['docs/x.md', 'shared.test.ts', 'c.test.ts', 'a.ts'], map)).toEqual(['a.ts', 'c.ts'])
    expect(filesTestedBy(['b.ts', 'a.test.tsx'], map)).toEqual([])
  })

  it('names only files of the mutation list, and test files that exist', () => {
    const root = path.resolve(import.meta.dirname, '../..')
    const files = Object.keys(FAST_TESTS)
    expect(mutationTargets(files, config.mutate)).toEqual(files)
    for (const tests of Object.values(FAST_TESTS)) for (const test of tests) expect(existsSync(path.join(root, test)), test).toBe(true)
  })
})

describe('npm run mutate -- --changed <base>, given a bad base', () => {
  const mutate = (...args: string[]) => execa(process.execPath, ['scripts/mutate.mjs', ...args], { cwd: path.resolve(import.meta.dirname, '../..'), reject: false })

  it('without a base, says what to name, in one line, and starts nothing', async () => {
    const result = await mutate('--changed')
    expect([result.exitCode, result.stderr]).toEqual([2, 'npm run mutate -- --changed <base>: name the commit or branch to compare with (e.g. main).'])
  })

  it('with a base git does not know, names it and what git said', async () => {
    const result = await mutate('--changed', 'no-such-branch-anywhere')
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/^npm run mutate -- --changed no-such-branch-anywhere: git finds no common ancestor of no-such-branch-anywhere and HEAD \(fatal: .*\)\.$/)
  })
})
