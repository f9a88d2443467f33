import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { judge, mountOracleCopy, touchesGoldFile } from '../../src/oracle/index.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { folderTask } from '../helpers/folder-task.ts'
import { NODE_TEST_COMMAND } from '../helpers/throwaway.ts'
import { agentWrites, type HarvestedFixture } from './git-fix-task.ts'
import { calc, calculatorTasks } from './node-hostile-sources.ts'

// The oracle's entry: each kind of task judged by its own oracle (a git-fix task by the fix's tests, a folder task
// by its verify.sh), the copy mounted ahead only where the oracle needs one, and whether a change touched a gold file.

let fixture: HarvestedFixture
let scratch: string
const workspaces: Workspace[] = []

beforeAll(async () => {
  fixture = await calculatorTasks(NODE_TEST_COMMAND)
  scratch = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-oracle-index-'))
})
afterAll(async () => {
  for (const workspace of workspaces) await workspace.dispose()
  await fixture?.cleanup()
  await rm(scratch, { recursive: true, force: true })
})

const gitFix = (): GitFixTask => fixture.tasks[0]!
const options = async () => ({ timeoutMs: 60_000, scratchDir: await mkdtemp(path.join(scratch, 'oracle-')) })
/** A sandbox that sees the harness's Node, as the oracle's other tests give it. */
const sandbox = { readOnly: [path.dirname(path.dirname(process.execPath))] }

async function calculatorWorkspace(mul: string): Promise<Workspace> {
  const workspace = await createGitFixWorkspace(gitFix(), scratch)
  workspaces.push(workspace)
  await workspace.snapshot()
  await agentWrites(workspace.dir, { 'src/calc.js': calc(mul) })
  return workspace
}

async function verifiedFolder(exit: number) {
  const task = await folderTask('task-outcome-oracle-index-task-', { 'app.sh': 'echo 1\n' }, { verify: `exit ${exit}` })
  const dir = await mkdtemp(path.join(scratch, 'folder-'))
  await writeFile(path.join(dir, 'app.sh'), 'echo 2\n')
  return { task, workspace: { dir, agentDir: dir, overlay: undefined } as unknown as Workspace }
}

describe('judge', () => {
  test('judges a git-fix task by its fix’s tests: the fix solves it, the bug left in does not', async () => {
    const fixed = await judge(gitFix(), await calculatorWorkspace('a * b'), await options())
    expect(fixed.solved).toBe(true)
    expect(fixed.oracle).toMatchObject({ failToPass: { passed: 1, total: 1 } })
    const unfixed = await judge(gitFix(), await calculatorWorkspace('a + b'), await options())
    expect(unfixed.solved).toBe(false)
    expect(unfixed.oracle).toMatchObject({ failToPass: { passed: 0, total: 1 } })
  })

  test('judges a folder task by its verify.sh', async () => {
    for (const [exit, solved] of [
      [0, true],
      [4, false],
    ] as const) {
      const { task, workspace } = await verifiedFolder(exit)
      const judgement = await judge(task, workspace, await options())
      expect(judgement).toMatchObject({ solved, oracle: { verifyExit: exit } })
    }
  })
})

describe('mountOracleCopy', () => {
  test('mounts a sandboxed git-fix oracle’s clean tree ahead', async () => {
    const mounting = mountOracleCopy(gitFix(), { ...(await options()), sandbox })
    expect(mounting).toBeInstanceOf(Promise)
    const copy = await mounting!
    try {
      expect(copy.overlay).toBeDefined()
      // The clean parent's tree: the bug still in it.
      expect(await readFile(path.join(copy.dir, 'src/calc.js'), 'utf8')).toBe(calc('a + b'))
    } finally {
      await copy.dispose()
    }
  })

  test('mounts nothing for a git-fix oracle without a sandbox, nor for a folder task even sandboxed', async () => {
    expect(mountOracleCopy(gitFix(), await options())).toBeUndefined()
    const { task } = await verifiedFolder(0)
    expect(mountOracleCopy(task, { ...(await options()), sandbox })).toBeUndefined()
  })
})

describe('touchesGoldFile', () => {
  test('says whether a git-fix run changed a gold file, and is null for a folder task', async () => {
    expect(touchesGoldFile(gitFix(), ['README.md', 'src/calc.js'])).toBe(true)
    expect(touchesGoldFile(gitFix(), ['README.md', 'src/other.js'])).toBe(false)
    expect(touchesGoldFile(gitFix(), [])).toBe(false)
    const { task } = await verifiedFolder(0)
    expect(touchesGoldFile(task, ['app.sh'])).toBeNull()
  })
})
