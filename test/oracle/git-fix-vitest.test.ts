import { describe, expect, it } from 'vitest'
import { HarnessFailure } from '../../src/errors.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { harvestedVitestTasks, judgedFixture } from './git-fix-task.ts'

// Harvest and the git-fix oracle on a throwaway project tested by the real Vitest (this project's own version, from
// node_modules prepared out of the project's lockfile, as a user's repository would have it).
const slug = (body: string) => `export function slugify(text) {\n  return ${body}\n}\n`
const BUGGY = "text.toLowerCase().replace(/ /g, '-')"
const FIXED = "text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')"
const BASE_TESTS = `import { slugify } from '../src/slug.js'

describe('slugify', () => {
  it.each([['Hello', 'hello'], ['Two Words', 'two-words']])('turns %s into %s', (input, expected) => {
    expect(slugify(input)).toBe(expected)
  })
})
`
const FIX_TESTS = `${BASE_TESTS}
describe('slugify punctuation', () => {
  it.each([['Hello, World!', 'hello-world'], ['  padded  ', 'padded']])('turns %s into %s', (input, expected) => {
    expect(slugify(input)).toBe(expected)
  })
})
`

const oracle = judgedFixture(
  () =>
    harvestedVitestTasks(
      { 'src/slug.js': slug(BUGGY), 'test/slug.test.js': BASE_TESTS },
      { subject: 'fix: punctuation left in slugs', files: { 'src/slug.js': slug(FIXED), 'test/slug.test.js': FIX_TESTS } },
    ),
  'oracle-vitest-',
)
const run = (files: Readonly<Record<string, string | null>>, target?: GitFixTask) => oracle.judge(files, target === undefined ? {} : { target })

describe('harvest and the git-fix oracle with Vitest', () => {
  it('harvests it.each cases as "file::describe > name" ids, whitespace runs in a parameter read as one space', () => {
    expect(oracle.task.metadata.FAIL_TO_PASS).toEqual([
      'test/slug.test.js::slugify punctuation > turns Hello, World! into hello-world',
      'test/slug.test.js::slugify punctuation > turns padded into padded',
    ])
    expect(oracle.task.metadata.PASS_TO_PASS).toEqual(['test/slug.test.js::slugify > turns Hello into hello', 'test/slug.test.js::slugify > turns Two Words into two-words'])
  })

  it('solves a run with the fix and leaves one without it unsolved', async () => {
    expect((await run({ 'src/slug.js': slug(FIXED) })).oracle).toEqual({ failToPass: { passed: 2, total: 2 }, passToPass: { passed: 2, total: 2 }, failing: [] })
    expect((await run({})).oracle.failToPass).toEqual({ passed: 0, total: 2 })
  })

  it('catches a PASS_TO_PASS regression', async () => {
    const verdict = await run({ 'src/slug.js': slug(`${FIXED}.replace('two', '2')`) })
    expect(verdict.solved).toBe(false)
    expect(verdict.oracle.failing).toEqual(['test/slug.test.js::slugify > turns Two Words into two-words'])
  })

  it('ignores an agent that rewrites the failing tests or adds a Vitest configuration that runs none', async () => {
    const verdict = await run({
      'test/slug.test.js': FIX_TESTS.replaceAll('expect(slugify(input)).toBe(expected)', 'expect(true).toBe(true)'),
      'vitest.config.js': 'export default { test: { include: [], passWithNoTests: true } }\n',
    })
    expect(verdict.solved).toBe(false)
    expect(verdict.oracle.failToPass).toEqual({ passed: 0, total: 2 })
    expect(verdict.stderr).toContain('ignored 2 change(s) to tests or test infrastructure: test/slug.test.js, vitest.config.js')
  })

  it('is a harness failure when the test command crashes before producing results', async () => {
    const broken: GitFixTask = { ...oracle.task, metadata: { ...oracle.task.metadata, test_command: `${oracle.task.metadata.test_command} --no-such-option-at-all` } }
    const failure = await run({ 'src/slug.js': slug(FIXED) }, broken).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(HarnessFailure)
    expect((failure as HarnessFailure).reason).toBe('oracle')
  })
})
