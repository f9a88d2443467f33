import { lstat, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runFixTests } from '../../src/oracle/git-fix.ts'
import { TaskGuard } from '../../src/runs/task-guard.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import { RACY_MARGIN_MS } from '../../src/workspace/stat-seal.ts'
import { parentTemplate } from '../../src/workspace/template.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { NODE_TEST_COMMAND } from '../helpers/throwaway.ts'
import { harvestedTasks, type HarvestedFixture } from '../oracle/git-fix-task.ts'

// The git-fix oracle under the run's task guard, as executeRun judges (beforeOracle, the oracle, afterOracle): the
// oracle mounts the template the guard watches without walking its seal, and the guard's look after the oracle still
// finds whatever wrote to it meanwhile. Real repository, workspace and sandbox, the real `node --test`.
const calc = (mul: string) => `export const add = (a, b) => a + b\nexport const mul = (a, b) => ${mul}\n`
const calcTest = (mulAssertion: string) =>
  `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add, mul } from '../src/calc.js'\n` +
  `test('adds', () => assert.equal(add(2, 3), 5))\ntest('multiplies', () => ${mulAssertion})\n`

let fixture: HarvestedFixture
let task: GitFixTask
let scratch: string
const workspaces: Workspace[] = []
const SANDBOX = { readOnly: [path.dirname(path.dirname(process.execPath))] }

beforeAll(async () => {
  fixture = await harvestedTasks(
    [
      { subject: 'Initial calculator', files: { 'package.json': '{"type":"module"}\n', 'src/calc.js': calc('a + b'), 'test/calc.test.js': calcTest('assert.ok(true)') } },
      { subject: 'fix: multiplying adds instead', files: { 'src/calc.js': calc('a * b'), 'test/calc.test.js': calcTest('assert.equal(mul(2, 3), 6)') } },
    ],
    { testCommand: NODE_TEST_COMMAND, source: ['src/**/*.js'], tests: ['test/**/*.test.js'] },
  )
  task = fixture.tasks[0]!
  scratch = await mkdtemp(path.join(os.tmpdir(), 'oracle-guard-'))
  // The template exported, then older than the racy margin before anything seals it, so the seals are trusted.
  await parentTemplate(task.repo, task.metadata.base)
  await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100))
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

describe('the oracle under the task guard', () => {
  let rewritten: Workspace
  it('mounts the watched template without walking its seal; a parent rewritten after the look before the oracle (size and mtime put back) is found by the look after it: tampered', async () => {
    const workspace = await freshWorkspace()
    rewritten = workspace
    const guard = await TaskGuard.beforeRun(task, path.dirname(task.dir))
    await guard.watchTemplate(workspace.template)
    expect(guard.watchedTemplate).toBe(workspace.template)
    await guard.beforeOracle()
    // Between the guard's look and the oracle's mount: the parent made to hold the fix, the same size, its mtime put back.
    const file = path.join(workspace.template, 'src', 'calc.js')
    const before = await lstat(file, { bigint: true })
    await writeFile(file, calc('a * b'))
    await execa('touch', ['-m', '-d', `@${before.mtimeNs / 1_000_000_000n}.${String(before.mtimeNs % 1_000_000_000n).padStart(9, '0')}`, file])
    expect((await lstat(file, { bigint: true })).mtimeNs).toBe(before.mtimeNs)
    const verdict = await runFixTests(task, workspace, {
      timeoutMs: 60_000,
      scratchDir: await mkdtemp(path.join(scratch, 'oracle-')),
      sandbox: SANDBOX,
      watchedTemplate: guard.watchedTemplate!,
    })
    // The oracle judged the rewritten parent (no walk of its own): the agent changed nothing, yet the fix is there.
    expect(verdict.solved).toBe(true)
    const after = guard.afterOracle()
    await expect(after).rejects.toMatchObject({ reason: 'tampered', retryable: false })
    await expect(after).rejects.toThrow(/after the oracle, its template .* changed during the run: src\/calc\.js changed/)
  })

  it('walks the seal itself when no guard watches the template (as for verify): the same rewritten parent is found and exported again, and the run is judged on the true parent: unsolved', async () => {
    const verdict = await runFixTests(task, rewritten, { timeoutMs: 60_000, scratchDir: await mkdtemp(path.join(scratch, 'oracle-')), sandbox: SANDBOX })
    expect(verdict.solved).toBe(false)
    expect(verdict.oracle.failing).toEqual(['multiplies'])
  })
})
