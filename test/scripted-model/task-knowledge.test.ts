import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { learnScriptedTask, listFiles } from '../../src/scripted-model/task-knowledge.ts'
import { HarnessFailure } from '../../src/errors.ts'
import { loadTask } from '../../src/tasks/load.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'

const root = path.resolve(import.meta.dirname, '../..')
let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'task-knowledge-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('learnScriptedTask', () => {
  test('a folder task: its solve.sh is run on a scratch copy, the workspace is untouched', async () => {
    const task = await loadTask(path.join(root, 'tasks/examples/001-greeting-punctuation'), root)
    if (task.kind !== 'folder') throw new Error('expected a folder task')
    const workspace = path.join(dir, 'ws')
    await cp(task.startingDir, workspace, { recursive: true })
    const before = await listFiles(workspace)
    const known = await learnScriptedTask(task, workspace)
    expect(known.files).toEqual(before)
    expect(known.edits).toHaveLength(1)
    const [edit] = known.edits
    expect(edit!.path).toBe('greet.js')
    expect(edit!.after).toContain('!')
    expect(edit!.before).not.toBe(edit!.after)
    expect(await listFiles(workspace)).toEqual(before)
  })

  test('a git-fix task: its gold.patch, files added and removed included; .git is never listed', async () => {
    const workspace = path.join(dir, 'ws')
    await cp(path.join(root, 'tasks/examples/002-sum-skips-header/starting'), workspace, { recursive: true })
    await cp(path.join(root, 'tasks/examples/002-sum-skips-header/starting'), path.join(workspace, '.git'), { recursive: true })
    const patch = path.join(dir, 'gold.patch')
    const fix = await readFile(path.join(root, 'tasks/examples/002-sum-skips-header/solution/fix.patch'), 'utf8')
    const csv = (await readFile(path.join(workspace, 'prices.csv'), 'utf8')).trimEnd().split('\n')
    const added = ['--- /dev/null', '+++ b/lib/header.js', '@@ -0,0 +1 @@', '+module.exports = 1']
    const removed = ['--- a/prices.csv', '+++ /dev/null', `@@ -1,${csv.length} +0,0 @@`, ...csv.map((line) => `-${line}`)]
    await writeFile(patch, `${fix.trimEnd()}\n${[...added, ...removed].join('\n')}\n`)
    const task = { kind: 'git-fix', id: '002-sum', prompt: 'sum is NaN', goldPatch: patch } as unknown as GitFixTask
    const known = await learnScriptedTask(task, workspace)
    expect(known.files).toEqual(['prices.csv', 'total.js'])
    expect(known.edits.map((edit) => [edit.path, edit.before === null, edit.after === null])).toEqual([
      ['lib/header.js', true, false],
      ['prices.csv', false, true],
      ['total.js', false, false],
    ])
  })

  test('no reference solution: no edits (the model explores and finishes)', async () => {
    const task = { kind: 'git-fix', id: '003', prompt: 'p', goldPatch: null } as unknown as GitFixTask
    await writeFile(path.join(dir, 'a.txt'), 'a')
    expect(await learnScriptedTask(task, dir)).toEqual({ id: '003', prompt: 'p', files: ['a.txt'], edits: [] })
  })

  test('a solution that does not apply is a setup failure naming the task', async () => {
    const patch = path.join(dir, 'bad.patch')
    await writeFile(patch, '--- a/missing.js\n+++ b/missing.js\n@@ -1 +1 @@\n-a\n+b\n')
    await writeFile(path.join(dir, 'a.txt'), 'a')
    const task = { kind: 'git-fix', id: '004-bad', prompt: 'p', goldPatch: patch } as unknown as GitFixTask
    const error = await learnScriptedTask(task, dir).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HarnessFailure)
    expect((error as HarnessFailure).reason).toBe('setup')
    expect((error as HarnessFailure).message).toContain('004-bad')
  })
})
