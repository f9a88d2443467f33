import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GoldAgent } from '../../src/agents/builtin/gold.ts'
import { HarnessFailure } from '../../src/errors.ts'
import { runFixTests } from '../../src/oracle/git-fix.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { NODE_TEST_COMMAND } from '../helpers/throwaway.ts'
import { agentWrites, harvestedTasks, type HarvestedFixture } from './git-fix-task.ts'

// The git-fix oracle on a throwaway repository tested by the real `node --test`: a real workspace, a simulated
// agent that writes files, and the real test runner judging a clean copy.
const calc = (add: string, mul: string) => `export const add = (a, b) => ${add}\nexport const mul = (a, b) => ${mul}\n`
const calcTest = (mulAssertion: string) =>
  `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add, mul } from '../src/calc.js'\n` +
  `test('adds', () => assert.equal(add(2, 3), 5))\ntest('multiplies', () => ${mulAssertion})\n`

let fixture: HarvestedFixture
let task: GitFixTask
let scratch: string
const workspaces: Workspace[] = []

beforeAll(async () => {
  fixture = await harvestedTasks(
    [
      { subject: 'Initial calculator', files: { 'package.json': '{"type":"module"}\n', 'src/calc.js': calc('a + b', 'a + b'), 'test/calc.test.js': calcTest('assert.ok(true)') } },
      { subject: 'fix: multiplying adds instead', files: { 'src/calc.js': calc('a + b', 'a * b'), 'test/calc.test.js': calcTest('assert.equal(mul(2, 3), 6)') } },
    ],
    { testCommand: NODE_TEST_COMMAND, source: ['src/**/*.js'], tests: ['test/**/*.test.js'] },
  )
  task = fixture.tasks[0]!
  scratch = await mkdtemp(path.join(os.tmpdir(), 'oracle-node-'))
})

afterAll(async () => {
  for (const workspace of workspaces) await workspace.dispose()
  await fixture.cleanup()
  await rm(scratch, { recursive: true, force: true })
})

async function freshWorkspace(): Promise<Workspace> {
  const workspace = await createGitFixWorkspace(task, scratch)
  workspaces.push(workspace)
  await workspace.snapshot()
  return workspace
}

/** The two ways the oracle judges: unsandboxed on a copy on disk, and in its sandbox on an overlay of the template. */
const WAYS = [
  { where: 'on a copy on disk (no sandbox)', sandbox: undefined },
  { where: 'in its sandbox, on an overlay of the template', sandbox: { readOnly: [path.dirname(path.dirname(process.execPath))] } },
]

describe.each(WAYS)('the git-fix oracle with node --test, $where', ({ sandbox }) => {
  const judge = async (workspace: Workspace, target: GitFixTask = task, timeoutMs = 60_000) => {
    const oracleScratch = await mkdtemp(path.join(scratch, 'oracle-'))
    return runFixTests(target, workspace, { timeoutMs, scratchDir: oracleScratch, ...(sandbox === undefined ? {} : { sandbox }) })
  }

  it('harvested the fix with the new test as FAIL_TO_PASS and the old one as PASS_TO_PASS', () => {
    expect(task.metadata.FAIL_TO_PASS).toEqual(['multiplies'])
    expect(task.metadata.PASS_TO_PASS).toEqual(['adds'])
  })

  it('solves the run when the agent makes the fix (the gold patch, applied by the gold agent)', async () => {
    const workspace = await freshWorkspace()
    await new GoldAgent().run({
      task,
      workspace: workspace.dir,
      prompt: task.prompt,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch },
      budgetUsd: 0,
      timeoutMs: 30_000,
      transcriptPath: path.join(scratch, 'gold.jsonl'),
      expectedHooks: [],
      arm: 'gold',
      seed: 1,
    })
    expect(await workspace.changedFiles()).toEqual(['src/calc.js'])
    const verdict = await judge(workspace)
    expect(verdict.solved).toBe(true)
    expect(verdict.oracle).toEqual({ failToPass: { passed: 1, total: 1 }, passToPass: { passed: 1, total: 1 }, failing: [] })
  })

  it('leaves the run unsolved when the agent changes nothing, naming the failing test', async () => {
    const verdict = await judge(await freshWorkspace())
    expect(verdict.solved).toBe(false)
    expect(verdict.oracle).toEqual({ failToPass: { passed: 0, total: 1 }, passToPass: { passed: 1, total: 1 }, failing: ['multiplies'] })
  })

  it('catches a PASS_TO_PASS regression: fixing multiplication while breaking addition is unsolved', async () => {
    const workspace = await freshWorkspace()
    await agentWrites(workspace.dir, { 'src/calc.js': calc('a - b', 'a * b') })
    const verdict = await judge(workspace)
    expect(verdict.solved).toBe(false)
    expect(verdict.oracle).toEqual({ failToPass: { passed: 1, total: 1 }, passToPass: { passed: 0, total: 1 }, failing: ['adds'] })
  })

  it('ignores an agent that rewrites the FAIL_TO_PASS test to pass, or adds tests of its own', async () => {
    const workspace = await freshWorkspace()
    await agentWrites(workspace.dir, {
      'test/calc.test.js': calcTest('assert.equal(6, 6)'),
      'test/extra.test.js': "import { test } from 'node:test'\ntest('multiplies', () => {})\n",
    })
    expect(await workspace.changedFiles()).toEqual(['test/calc.test.js', 'test/extra.test.js'])
    const verdict = await judge(workspace)
    expect(verdict.solved).toBe(false)
    expect(verdict.oracle.failing).toEqual(['multiplies'])
    expect(verdict.stderr).toContain('ignored 2 change(s) to tests or test infrastructure: test/calc.test.js, test/extra.test.js')
  })

  it("still takes the agent's source changes when it also edits the tests", async () => {
    const workspace = await freshWorkspace()
    await agentWrites(workspace.dir, { 'src/calc.js': calc('a + b', 'a * b'), 'test/calc.test.js': 'this is not a test file anymore\n' })
    const verdict = await judge(workspace)
    expect(verdict.solved).toBe(true)
    expect(verdict.stderr).toContain('took 1 changed non-test file(s) from the agent: src/calc.js')
  })

  it("counts a run past the oracle timeout as unsolved (the agent's code hangs the tests)", async () => {
    const workspace = await freshWorkspace()
    await agentWrites(workspace.dir, { 'src/calc.js': calc('a + b', '{ while (true) {} }') })
    const verdict = await judge(workspace, task, 3_000)
    expect(verdict.solved).toBe(false)
    expect(verdict.oracle.failing).toContain('multiplies')
  })

  it('is a harness failure, never "unsolved", when the test command crashes before producing results', async () => {
    const broken: GitFixTask = { ...task, metadata: { ...task.metadata, test_command: 'node --no-such-flag --test {tests} # writes no {junit}' } }
    const workspace = await freshWorkspace()
    const failure = await judge(workspace, broken).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(HarnessFailure)
    expect((failure as HarnessFailure).reason).toBe('oracle')
    expect((failure as HarnessFailure).message).toMatch(/produced no results .*not even on the clean parent/s)
  })

  it('never changes the workspace it judges', async () => {
    const workspace = await freshWorkspace()
    await agentWrites(workspace.dir, { 'src/calc.js': calc('a + b', 'a * b') })
    await judge(workspace)
    expect(await workspace.changedFiles()).toEqual(['src/calc.js'])
    expect(await readFile(path.join(workspace.dir, 'test/calc.test.js'), 'utf8')).toBe(calcTest('assert.ok(true)'))
  })
})

describe('the sandboxed git-fix oracle', () => {
  it('runs the tests in an overlay mounted at its working directory, where they may write what the harness laid', async () => {
    // The test command prints the mount point of every overlay it sees (the file system type follows the `-` field), and
    // writes the agent's taken file and the fix's test file, both laid by the harness (as root) in the upper layer.
    const oracleScratch = await mkdtemp(path.join(scratch, 'oracle-'))
    const looking: GitFixTask = {
      ...task,
      metadata: {
        ...task.metadata,
        test_command: `awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "overlay") print "overlay at " $5; break } }' /proc/self/mountinfo >&2; touch src/calc.js test/calc.test.js && echo 'wrote what the harness laid' >&2; ${task.metadata.test_command}`,
      },
    }
    const workspace = await freshWorkspace()
    await agentWrites(workspace.dir, { 'src/calc.js': calc('a + b', 'a * b') })
    const verdict = await runFixTests(looking, workspace, { timeoutMs: 60_000, scratchDir: oracleScratch, sandbox: WAYS[1]!.sandbox! })
    expect(verdict.solved).toBe(true)
    const tree = /^overlay at (\S+)$/m.exec(verdict.stderr)?.[1]
    expect(tree).toMatch(new RegExp(`^${oracleScratch}/oracle-[^/]+/tree$`))
    expect(verdict.stderr).toMatch(/^wrote what the harness laid$/m)
  })
})
