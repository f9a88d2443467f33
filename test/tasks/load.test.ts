import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { mkdtemp } from 'node:fs/promises'
import { describe, expect, test } from 'vitest'
import { ProblemsError } from '../../src/errors.ts'
import { loadTaskSet } from '../../src/tasks/load.ts'
import { writeFolderTasks, type FixtureTask } from '../helpers/experiment-fixture.ts'

const valid: FixtureTask = { id: '001-fine', starting: { 'a.txt': 'a\n' }, verify: 'exit 1', solve: 'true' }

/** Writes one valid task, lets `breakIt` damage it, and returns the problems loading reports. */
async function problemsAfter(breakIt: (dir: string) => Promise<void>, task: FixtureTask = valid) {
  const setDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-load-'))
  await writeFolderTasks(setDir, [task])
  await breakIt(path.join(setDir, task.id))
  try {
    await loadTaskSet(setDir, {}, setDir)
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemsError)
    return (error as ProblemsError).problems
  }
  throw new Error('loading succeeded, but a problem was expected')
}

describe('loading a task set of folder tasks', () => {
  test('a valid task loads with its prompt, files and reference solution', async () => {
    const setDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-load-'))
    await writeFolderTasks(setDir, [valid])
    const [task] = await loadTaskSet(setDir, {}, setDir)
    expect(task?.kind).toBe('folder')
    expect(task?.id).toBe('001-fine')
    expect(task?.prompt).toBe('Fix fine.\n')
    expect(task?.kind === 'folder' && task.solution?.kind).toBe('script')
    expect(task?.files.map((file) => path.relative(setDir, file))).toEqual([
      '001-fine/metadata.json',
      '001-fine/solution/solve.sh',
      '001-fine/starting/a.txt',
      '001-fine/task.md',
      '001-fine/verify.sh',
    ])
  })

  test('a symbolic link is refused, naming the file', async () => {
    const problems = await problemsAfter((dir) => symlink('/etc/hostname', path.join(dir, 'starting', 'link')))
    expect(problems).toContainEqual(expect.objectContaining({ file: '001-fine/starting/link', message: expect.stringContaining('symbolic link') }))
  })

  test('a verify.sh that is not executable is refused', async () => {
    const problems = await problemsAfter((dir) => chmod(path.join(dir, 'verify.sh'), 0o644))
    expect(problems).toContainEqual(expect.objectContaining({ file: '001-fine/verify.sh', message: expect.stringContaining('chmod +x') }))
  })

  test('metadata id and slug must match the folder name', async () => {
    const problems = await problemsAfter(async () => undefined, { ...valid, metadata: { id: '002', slug: 'other' } })
    expect(problems).toContainEqual(expect.objectContaining({ file: '001-fine/metadata.json', field: 'id', message: expect.stringContaining('"002"') }))
    expect(problems).toContainEqual(expect.objectContaining({ file: '001-fine/metadata.json', field: 'slug' }))
  })

  test('an unknown metadata key is refused by name', async () => {
    const problems = await problemsAfter(async () => undefined, { ...valid, metadata: { dificulty: 'easy' } })
    expect(problems).toContainEqual(expect.objectContaining({ file: '001-fine/metadata.json', field: 'dificulty', message: expect.stringContaining('unknown field') }))
  })

  test('target_skill equal to irrelevant_skill is refused (unless both are "none")', async () => {
    const problems = await problemsAfter(async () => undefined, { ...valid, metadata: { target_skill: 'git', irrelevant_skill: 'git' } })
    expect(problems).toContainEqual(expect.objectContaining({ field: 'irrelevant_skill', message: expect.stringContaining('equals target_skill') }))
  })

  test('a missing field, bad JSON, a missing prompt and a missing starting/ are each named', async () => {
    expect(await problemsAfter(async () => undefined, { ...valid, metadata: { difficulty: 'trivial' } })).toContainEqual(expect.objectContaining({ field: 'difficulty' }))
    expect(await problemsAfter((dir) => writeFile(path.join(dir, 'metadata.json'), '{ "id": "001",'))).toContainEqual(
      expect.objectContaining({ file: '001-fine/metadata.json', message: expect.stringContaining('not valid JSON') }),
    )
    expect(await problemsAfter((dir) => rm(path.join(dir, 'task.md')))).toContainEqual(expect.objectContaining({ file: '001-fine/task.md' }))
    expect(await problemsAfter((dir) => rm(path.join(dir, 'starting'), { recursive: true }))).toContainEqual(
      expect.objectContaining({ file: '001-fine/starting', message: expect.stringContaining('starting/') }),
    )
  })

  test('a folder not named <NNN>-<slug> holding metadata.json is refused', async () => {
    const setDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-load-'))
    await mkdir(path.join(setDir, 'Bad_Name'))
    await writeFile(path.join(setDir, 'Bad_Name', 'metadata.json'), '{}')
    await expect(loadTaskSet(setDir, {}, setDir)).rejects.toThrow(/Bad_Name: folder name must be "<NNN>-<slug>"/)
  })

  test('every problem of every task is reported at once', async () => {
    const setDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-load-'))
    await writeFolderTasks(setDir, [valid, { ...valid, id: '002-also' }])
    await chmod(path.join(setDir, '001-fine', 'verify.sh'), 0o644)
    await rm(path.join(setDir, '002-also', 'task.md'))
    const error = await loadTaskSet(setDir, {}, setDir).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ProblemsError)
    expect((error as ProblemsError).problems.map((p) => p.file)).toEqual(['001-fine/verify.sh', '002-also/task.md'])
    expect((error as Error).message).toContain('2 problem(s)')
  })

  test('include and first select tasks; an unknown included id is a problem', async () => {
    const setDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-load-'))
    await writeFolderTasks(setDir, [valid, { ...valid, id: '002-b' }, { ...valid, id: '003-c' }])
    expect((await loadTaskSet(setDir, { first: 2 }, setDir)).map((t) => t.id)).toEqual(['001-fine', '002-b'])
    expect((await loadTaskSet(setDir, { include: ['003-c', '001-fine'] }, setDir)).map((t) => t.id)).toEqual(['003-c', '001-fine'])
    await expect(loadTaskSet(setDir, { include: ['009-none'] }, setDir)).rejects.toThrow(/no task folder "009-none"/)
  })

  test('include takes the task id a folder name starts with as well as the whole folder name; an id naming two folders is a problem', async () => {
    const setDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-load-'))
    await writeFolderTasks(setDir, [valid, { ...valid, id: '002-b' }, { ...valid, id: '003-c' }, { ...valid, id: '0031-d' }])
    expect((await loadTaskSet(setDir, { include: ['003', '001'] }, setDir)).map((t) => t.id)).toEqual(['003-c', '001-fine'])
    expect((await loadTaskSet(setDir, { include: ['002', '0031-d'] }, setDir)).map((t) => t.id)).toEqual(['002-b', '0031-d'])
    await expect(loadTaskSet(setDir, { include: ['009'] }, setDir)).rejects.toThrow(/no task folder "009" \(nor one named "009-<slug>"\)/)
    await writeFolderTasks(setDir, [{ ...valid, id: '002-again' }])
    await expect(loadTaskSet(setDir, { include: ['002'] }, setDir)).rejects.toThrow('"002" names 2 task folders (002-again, 002-b): write the whole folder name')
  })
})
