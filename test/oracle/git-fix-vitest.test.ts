import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HarnessFailure } from '../../src/errors.ts'
import { runFixTests } from '../../src/oracle/git-fix.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { agentWrites, type HarvestedFixture, harvestedVitestTasks } from './git-fix-task.ts'

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

let fixture: HarvestedFixture
let task: GitFixTask
let scratch: string
const workspaces: Workspace[] = []

beforeAll(async () => {
  fixture = await harvestedVitestTasks(
    { 'src/slug.js': slug(BUGGY), 'test/slug.test.js': BASE_TESTS },
    { subject: 'fix: punctuation left in slugs', files: { 'src/slug.js': slug(FIXED), 'test/slug.test.js': FIX_TESTS } },
  )
  task = fixture.tasks[0]!
  scratch = await mkdtemp(path.join(os.tmpdir(), 'oracle-vitest-'))
})

afterAll(async () => {
  for (const workspace of workspaces) await workspace.dispose()
  await fixture.cleanup()
  await rm(scratch, { recursive: true, force: true })
})

async function run(files: Readonly<Record<string, string | null>>, target: GitFixTask = task) {
  const workspace = await createGitFixWorkspace(task, scratch)
  workspaces.push(workspace)
  await workspace.snapshot()
  await agentWrites(workspace.dir, files)
  return runFixTests(target, workspace, { timeoutMs: 60_000, scratchDir: await mkdtemp(path.join(scratch, 'oracle-')) })
}

describe('harvest and the git-fix oracle with Vitest', () => {
  it('harvests it.each cases as "file::describe > name" ids, whitespace runs in a parameter read as one space', () => {
    expect(task.metadata.FAIL_TO_PASS).toEqual([
      'test/slug.test.js::slugify punctuation > turns Hello, World! into hello-world',
      'test/slug.test.js::slugify punctuation > turns padded into padded',
    ])
    expect(task.metadata.PASS_TO_PASS).toEqual(['test/slug.test.js::slugify > turns Hello into hello', 'test/slug.test.js::slugify > turns Two Words into two-words'])
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
    const broken: GitFixTask = { ...task, metadata: { ...task.metadata, test_command: `${task.metadata.test_command} --no-such-option-at-all` } }
    const failure = await run({ 'src/slug.js': slug(FIXED) }, broken).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(HarnessFailure)
    expect((failure as HarnessFailure).reason).toBe('oracle')
  })
})
