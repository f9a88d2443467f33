import { randomUUID } from 'node:crypto'
import { lstat, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, test } from 'vitest'
import { TaskGuard } from '../../src/runs/task-guard.ts'
import { loadTaskSet } from '../../src/tasks/load.ts'
import type { Task } from '../../src/tasks/task.ts'
import { RACY_MARGIN_MS } from '../../src/workspace/stat-seal.ts'
import { folderTemplate } from '../../src/workspace/template.ts'
import { writeFolderTasks } from '../helpers/experiment-fixture.ts'

// The guard's template check across runs of one process, called as the executor calls it (beforeRun, watchTemplate
// once the workspace exists, beforeOracle after the agent, afterOracle): the first run checks the template's content and seals it;
// later runs rely on the seal, and a moved seal sends the template through the content check again. Each test has a
// task (and so a template) of its own, made older than the racy margin so that its seal is trusted.

const roots: string[] = []
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true })
})

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One guarded run without an agent or an oracle; `during` is what happens between the workspace and the oracle. */
async function guardedRun(task: Task, root: string, template: string, during: () => Promise<void> = async () => undefined): Promise<void> {
  const guard = await TaskGuard.beforeRun(task, root)
  await guard.watchTemplate(template)
  await during()
  await guard.beforeOracle()
  await guard.afterOracle()
}

/** A folder task, its template (older than the racy margin) and one clean run that sealed it. */
async function sealedTask(): Promise<{ task: Task; root: string; template: string; file: string; starting: string; sealedWithin: [number, number] }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'guard-seal-'))
  roots.push(root)
  const setDir = path.join(root, 'tasks')
  await writeFolderTasks(setDir, [{ id: '001-sealed', starting: { 'value.txt': 'wrong\n', 'unique.txt': `${randomUUID()}\n` }, verify: 'grep -qx right value.txt' }])
  const [task] = await loadTaskSet(setDir, {}, root)
  const starting = path.join(setDir, '001-sealed', 'starting')
  const template = await folderTemplate(starting, path.join(root, 'templates'))
  await wait(RACY_MARGIN_MS + 100)
  const from = Date.now()
  await guardedRun(task!, root, template)
  return { task: task!, root, template, file: path.join(template, 'value.txt'), starting, sealedWithin: [from, Date.now()] }
}

/** Rewrites `file` with `content` (same size) and puts its mtime back to the nanosecond. */
async function rewriteKeepingMtime(file: string, content: string): Promise<void> {
  const before = await lstat(file, { bigint: true })
  await writeFile(file, content)
  await execa('touch', ['-m', '-d', `@${before.mtimeNs / 1_000_000_000n}.${String(before.mtimeNs % 1_000_000_000n).padStart(9, '0')}`, file])
  const after = await lstat(file, { bigint: true })
  expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs])
}

describe('the template check across the runs of one process', () => {
  test("a sealed template that nothing wrote lets every later run through on the first run's seal, which still finds a change after them", async () => {
    const { task, root, template, file, sealedWithin } = await sealedTask()
    await expect(guardedRun(task, root, template)).resolves.toBeUndefined()
    await expect(guardedRun(task, root, template)).resolves.toBeUndefined()
    // The later runs kept the first run's seal (not one of their own, nor none): a change made now is found by it,
    // and the message dates the check to the first run.
    await rewriteKeepingMtime(file, 'right\n')
    const failure = await guardedRun(task, root, template).then(
      () => undefined,
      (error: unknown) => error as Error,
    )
    expect(failure?.message).toMatch(/after the oracle, its template .* changed since this process checked it \(.*\): value\.txt changed/)
    const checkedAt = Date.parse(/checked it \(([^)]+)\)/.exec(failure!.message)![1]!)
    expect(checkedAt).toBeGreaterThanOrEqual(sealedWithin[0])
    expect(checkedAt).toBeLessThanOrEqual(sealedWithin[1])
  })

  test('a sealed template rewritten between runs with its size and mtime put back stops the next run at the look after its oracle, naming the file', async () => {
    const { task, root, template, file } = await sealedTask()
    await rewriteKeepingMtime(file, 'right\n')
    await expect(guardedRun(task, root, template)).rejects.toThrow(/after the oracle, its template .* changed since this process checked it \(.*\): value\.txt changed/)
  })

  test('a sealed template written during a later run and put back, mtime too, stops that run by its change time', async () => {
    const { task, root, template, file } = await sealedTask()
    const original = await readFile(file, 'utf8')
    const run = guardedRun(task, root, template, async () => {
      await rewriteKeepingMtime(file, 'right\n')
      await rewriteKeepingMtime(file, original)
    })
    await expect(run).rejects.toThrow(/after the oracle, template entry value\.txt was written during the run \(its change time moved\), even if its content is back/)
  })

  test("the look before the oracle leaves the template's seal unwalked (one walk a run): a write then is found by the look after the oracle", async () => {
    const { task, root, template, file } = await sealedTask()
    const guard = await TaskGuard.beforeRun(task, root)
    await guard.watchTemplate(template)
    await rewriteKeepingMtime(file, 'right\n')
    await expect(guard.beforeOracle()).resolves.toBeUndefined()
    await expect(guard.afterOracle()).rejects.toThrow(/after the oracle, its template .* changed since this process checked it \(.*\): value\.txt changed/)
  })

  test('a file added to a sealed template during a run stops it, naming the file', async () => {
    const { task, root, template } = await sealedTask()
    const run = guardedRun(task, root, template, () => writeFile(path.join(template, 'planted.txt'), 'x\n'))
    await expect(run).rejects.toThrow(/after the oracle, its template .* changed since this process checked it \(.*\): planted\.txt was added/)
  })

  test('a template touched and put back well before a run began passes that run, and is sealed again', async () => {
    const { task, root, template, file } = await sealedTask()
    await rewriteKeepingMtime(file, 'right\n')
    await rewriteKeepingMtime(file, 'wrong\n')
    await wait(RACY_MARGIN_MS + 100)
    await guardedRun(task, root, template)
    // Sealed again: a change now is found by the new seal.
    await rewriteKeepingMtime(file, 'right\n')
    await expect(guardedRun(task, root, template)).rejects.toThrow(/after the oracle, its template .*: value\.txt changed/)
  })

  test('a template exported anew between runs (a new folder) is checked in full before the next run, which passes', async () => {
    const { task, root, template, starting } = await sealedTask()
    await rm(template, { recursive: true, force: true })
    const again = await folderTemplate(starting, path.join(root, 'templates'))
    expect(again).toBe(template)
    await guardedRun(task, root, template)
  })
})
