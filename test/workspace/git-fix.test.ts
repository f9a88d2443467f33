import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadTaskSet } from '../../src/tasks/load.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import { harnessGit } from '../../src/workspace/git.ts'
import { openRepository, type OpenRepository } from '../../src/workspace/repository.ts'
import { gitIn } from '../helpers/in-workspace.ts'
import { RACY_MARGIN_MS } from '../../src/workspace/stat-seal.ts'
import { templatePath } from '../../src/workspace/template.ts'

// Workspaces for the bundled demo tasks (the ledgerline sample, a real git bundle), with the template cache in a
// folder of this test's own so that the first workspace really builds it.
let root: string
let templates: string
let tasks: GitFixTask[]
let source: OpenRepository
const savedTemplates = process.env.TASK_OUTCOME_TEMPLATES

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'git-fix-workspace-'))
  templates = path.join(root, 'templates')
  process.env.TASK_OUTCOME_TEMPLATES = templates
  tasks = (await loadTaskSet(path.resolve('tasks/demo'))) as GitFixTask[]
  source = await openRepository(tasks[0]!.repo)
})

afterAll(async () => {
  if (savedTemplates === undefined) delete process.env.TASK_OUTCOME_TEMPLATES
  else process.env.TASK_OUTCOME_TEMPLATES = savedTemplates
  await source.dispose()
  await rm(root, { recursive: true, force: true })
})

describe('a git-fix workspace', () => {
  it("is a one-commit repository of the fix's parent, with a fixed author and date", async () => {
    const task = tasks[0]!
    const workspace = await createGitFixWorkspace(task, root)
    try {
      const git = { raw: (args: string[]) => gitIn(workspace, args) }
      expect((await git.raw(['rev-list', '--count', 'HEAD'])).trim()).toBe('1')
      expect((await git.raw(['log', '-1', '--format=%an <%ae> %aI %cI %s'])).trim()).toBe(
        'task-outcome <task-outcome@localhost> 2000-01-01T00:00:00+00:00 2000-01-01T00:00:00+00:00 starting point',
      )
      const parentTree = (await source.git.raw(['rev-parse', `${task.metadata.base}^{tree}`])).trim()
      expect((await git.raw(['rev-parse', 'HEAD^{tree}'])).trim()).toBe(parentTree)
      expect((await git.raw(['status', '--porcelain'])).trim()).toBe('')
    } finally {
      await workspace.dispose()
    }
  })

  it('holds neither the fix, nor its tests, nor any later history', async () => {
    const task = tasks[0]!
    const workspace = await createGitFixWorkspace(task, root)
    try {
      const git = { raw: (args: string[]) => gitIn(workspace, args) }
      for (const commit of [task.metadata.fix, task.metadata.base]) {
        expect(await git.raw(['cat-file', '-t', commit]).catch(() => 'missing')).toBe('missing')
      }
      for (const file of task.metadata.test_files) {
        const oracleVersion = await readFile(path.join(task.oracleDir, file), 'utf8')
        expect(await readFile(path.join(workspace.dir, file), 'utf8')).not.toBe(oracleVersion)
      }
      expect((await git.raw(['for-each-ref', '--format=%(refname)'])).trim()).toBe('refs/heads/main')
    } finally {
      await workspace.dispose()
    }
  })

  it('reports only what changed after the snapshot, and disposes of itself', async () => {
    const workspace = await createGitFixWorkspace(tasks[1]!, root)
    await mkdir(path.join(workspace.dir, '.claude'), { recursive: true })
    await writeFile(path.join(workspace.dir, '.claude/settings.json'), '{}\n')
    await workspace.snapshot()
    await writeFile(path.join(workspace.dir, 'src/amountparse.js'), '// changed\n')
    await writeFile(path.join(workspace.dir, 'NOTES.md'), 'new\n')
    expect(await workspace.changedFiles()).toEqual(['NOTES.md', 'src/amountparse.js'])
    expect(await workspace.diff()).toContain('+// changed')
    await workspace.dispose()
    await expect(stat(workspace.agentDir)).rejects.toThrow()
  })

  it('exports each task once: later workspaces copy the same template', async () => {
    const task = tasks[2]!
    const first = await createGitFixWorkspace(task, root)
    const template = await templatePath(task.repo, task.metadata.base)
    const built = await stat(template)
    const second = await createGitFixWorkspace(task, root)
    expect((await stat(template)).ino).toBe(built.ino)
    expect((await stat(template)).mtimeMs).toBe(built.mtimeMs)
    expect(second.dir).not.toBe(first.dir)
    await writeFile(path.join(first.dir, 'src/ledgerread.js'), '// only in the first\n')
    expect(await readFile(path.join(second.dir, 'src/ledgerread.js'), 'utf8')).not.toBe('// only in the first\n')
    expect((await harnessGit(template).raw(['status', '--porcelain'])).trim()).toBe('')
    await first.dispose()
    await second.dispose()
  })

  it('builds a template safely when many workspaces of one task are made at once', async () => {
    const task = tasks[3]!
    const workspaces = await Promise.all(Array.from({ length: 6 }, () => createGitFixWorkspace(task, root)))
    const entries = await readdir(templates)
    expect(entries.filter((name) => name.startsWith('.building-'))).toEqual([])
    expect(entries).toContain(path.basename(await templatePath(task.repo, task.metadata.base)))
    for (const workspace of workspaces) {
      expect((await gitIn(workspace, ['rev-list', '--count', 'HEAD'])).trim()).toBe('1')
      await workspace.dispose()
    }
  })
})

describe('a modified template', () => {
  it('is noticed and exported again, so no run starts from (or is judged on) a changed parent', async () => {
    const task = tasks[4]!
    const first = await createGitFixWorkspace(task, root)
    await first.dispose()
    const template = await templatePath(task.repo, task.metadata.base)
    const pristine = await readFile(path.join(template, 'src/moneyfmt.js'), 'utf8')
    await writeFile(path.join(template, 'src/moneyfmt.js'), '// tampered\n')
    await writeFile(path.join(template, 'left-behind.txt'), 'x\n')
    const second = await createGitFixWorkspace(task, root)
    expect(await readFile(path.join(second.dir, 'src/moneyfmt.js'), 'utf8')).toBe(pristine)
    await expect(stat(path.join(second.dir, 'left-behind.txt'))).rejects.toThrow()
    await second.dispose()
  })

  /** The task's template once this process holds its seal: made, older than the racy margin, then checked once more. */
  async function sealedTemplate(task: (typeof tasks)[number]): Promise<string> {
    await (await createGitFixWorkspace(task, root)).dispose()
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100))
    await (await createGitFixWorkspace(task, root)).dispose()
    return templatePath(task.repo, task.metadata.base)
  }

  it('is noticed by its change time once sealed, even rewritten with its size and mtime put back, and exported again', async () => {
    const task = tasks[5]!
    const template = await sealedTemplate(task)
    const file = path.join(template, 'src/moneyfmt.js')
    const pristine = await readFile(file, 'utf8')
    const before = await lstat(file, { bigint: true })
    const tampered = pristine.replace(/[a-z]/, (letter) => (letter === 'x' ? 'y' : 'x'))
    expect(tampered).not.toBe(pristine)
    await writeFile(file, tampered)
    await execa('touch', ['-m', '-d', `@${before.mtimeNs / 1_000_000_000n}.${String(before.mtimeNs % 1_000_000_000n).padStart(9, '0')}`, file])
    const after = await lstat(file, { bigint: true })
    expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs])
    const third = await createGitFixWorkspace(task, root)
    expect(await readFile(path.join(third.dir, 'src/moneyfmt.js'), 'utf8')).toBe(pristine)
    await third.dispose()
  })

  it('once sealed and then removed, is exported again without trying to mount the missing folder', async () => {
    const task = tasks[6]!
    const template = await sealedTemplate(task)
    await rm(template, { recursive: true, force: true })
    const written: string[] = []
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0)
    try {
      const again = await createGitFixWorkspace(task, root)
      expect((await gitIn(again, ['rev-list', '--count', 'HEAD'])).trim()).toBe('1')
      await again.dispose()
    } finally {
      spy.mockRestore()
    }
    expect(written.join('')).not.toMatch(/overlay/)
  })
})
