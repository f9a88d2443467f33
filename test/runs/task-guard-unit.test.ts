import { randomUUID } from 'node:crypto'
import { readdirSync, unlinkSync } from 'node:fs'
import { chmod, cp, mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, test } from 'vitest'
import { HarnessFailure } from '../../src/errors.ts'
import { TaskGuard } from '../../src/runs/task-guard.ts'
import { sha256 } from '../../src/shared/sha256.ts'
import { loadTaskSet } from '../../src/tasks/load.ts'
import { GitFixMetadataSchema } from '../../src/tasks/metadata.ts'
import type { FolderTask, GitFixTask, Task } from '../../src/tasks/task.ts'
import { prepareDependencies, type DependencyRecipe, type PreparedDependencies } from '../../src/workspace/dependencies.ts'
import { RACY_MARGIN_MS } from '../../src/workspace/stat-seal.ts'
import { writeFolderTasks } from '../helpers/experiment-fixture.ts'
import { minimalGitFixMetadata } from '../helpers/git-fix-metadata.ts'
import { eventLoopTurns } from '../helpers/event-loop.ts'

// The guard driven directly, as the executor drives it (beforeRun, watchTemplate and watchDependencies once the
// workspace exists, beforeOracle after the agent, afterOracle), on folders laid out here: task folders loaded as the
// harness loads them, templates copied from `starting/` or checked out of a real git repository, dependency folders
// prepared by a shell command (no npm, no sandbox). Each test has tasks, templates and caches of its own: the guard's
// memory (what a template must hold, which templates are sealed) is per process and keyed by folder.

const scratches: string[] = []
afterAll(async () => {
  for (const dir of scratches) await rm(dir, { recursive: true, force: true })
})

/** A fresh folder of this test file's own, removed after the file's tests. */
async function scratch(prefix = 'guard-unit-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix))
  scratches.push(dir)
  return dir
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until what was written so far is older than the racy margin, so a seal taken now is trusted. */
const outlastRacyMargin = () => wait(RACY_MARGIN_MS + 100)

/** What `tampered()` appends to every message. */
const TAIL = '. The experiment stops; this run is not recorded. Restore the file (or, for a template, remove it: it is exported again) and find what wrote it.'

/**
 * Awaits `work`, which must fail as tampering (a `HarnessFailure` with reason `tampered`, never retried, its message
 * ending in the advice), and returns the message without that advice.
 */
async function tampering(work: Promise<unknown>): Promise<string> {
  const failure = await work.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(failure).toBeInstanceOf(HarnessFailure)
  const harness = failure as HarnessFailure
  expect([harness.reason, harness.retryable]).toEqual(['tampered', false])
  expect(harness.message.endsWith(TAIL), harness.message).toBe(true)
  return harness.message.slice(0, -TAIL.length)
}

/**
 * A folder task `001-guarded` with `starting` (and `unique.txt`, and `empty` empty files `f<i>.txt`) as its
 * `starting/`, loaded from `<root>/tasks`, and a fresh copy of `starting/` as its template.
 */
async function folderTask(starting: Record<string, string> = { 'value.txt': 'wrong\n' }, empty = 0): Promise<{ task: FolderTask; root: string; template: string }> {
  const root = await scratch()
  const setDir = path.join(root, 'tasks')
  await writeFolderTasks(setDir, [{ id: '001-guarded', starting: { ...starting, 'unique.txt': `${randomUUID()}\n` }, verify: 'grep -qx right value.txt' }])
  await Promise.all(Array.from({ length: empty }, (_, i) => writeFile(path.join(setDir, '001-guarded', 'starting', `f${i}.txt`), '')))
  const [task] = await loadTaskSet(setDir, {}, root)
  expect(task?.kind).toBe('folder')
  return { task: task as FolderTask, root, template: await copyOf((task as FolderTask).startingDir) }
}

/** A copy of `dir` (modes and links kept; `cp -a`, many times faster than fs.cp) in a fresh folder: a template as `folderTemplate` exports one. */
async function copyOf(dir: string): Promise<string> {
  const copy = path.join(await scratch('guard-template-'), 'template')
  await execa('cp', ['-a', dir, copy])
  return copy
}

/** A whole clean run: beforeRun (the files as they are the reference), the template watched, both looks at the oracle. */
async function cleanRun(task: Task, root: string, template?: string): Promise<TaskGuard> {
  const guard = await TaskGuard.beforeRun(task, root)
  if (template !== undefined) await guard.watchTemplate(template)
  await guard.beforeOracle()
  await guard.afterOracle()
  return guard
}

/** The spec manifest of `task`'s files as it is on disk now: SHA-256 by path relative to `root`, with `/`. */
async function manifestOf(task: Task, root: string): Promise<Record<string, string>> {
  const manifest: Record<string, string> = {}
  for (const file of task.files) manifest[path.relative(root, file).split(path.sep).join('/')] = sha256(await readFile(file))
  return manifest
}

describe('the task files: hashed against the spec manifest before the run and around the oracle, their change times standing still', () => {
  test('files matching the manifest (keyed by their path from the root, with /) pass a whole run', async () => {
    const { task, root } = await folderTask()
    const manifest = await manifestOf(task, root)
    expect(Object.keys(manifest)).toContain('tasks/001-guarded/verify.sh')
    const guard = await TaskGuard.beforeRun(task, root, manifest)
    await guard.beforeOracle()
    await expect(guard.afterOracle()).resolves.toBeUndefined()
  })

  test('a file that differs from the manifest stops the run before it starts, naming the file and both hashes (12 digits each)', async () => {
    const { task, root } = await folderTask()
    const manifest = await manifestOf(task, root)
    const actual = manifest['tasks/001-guarded/verify.sh']!
    const locked = 'f'.repeat(64)
    const message = await tampering(TaskGuard.beforeRun(task, root, { ...manifest, 'tasks/001-guarded/verify.sh': locked }))
    expect(message).toBe(
      `001-guarded: before the run, task file tasks/001-guarded/verify.sh differs from the spec manifest (SHA-256 ${actual.slice(0, 12)}…, locked ${locked.slice(0, 12)}…)`,
    )
  })

  test('a file the manifest names that is gone stops the run before it starts: missing', async () => {
    const { task, root } = await folderTask()
    const manifest = await manifestOf(task, root)
    await unlink(path.join(task.dir, 'verify.sh'))
    expect(await tampering(TaskGuard.beforeRun(task, root, manifest))).toBe('001-guarded: before the run, task file tasks/001-guarded/verify.sh is missing')
  })

  test('without a manifest the files as they are at the start are the reference: one changed before the oracle is found then', async () => {
    const { task, root } = await folderTask()
    const guard = await TaskGuard.beforeRun(task, root)
    await writeFile(path.join(task.dir, 'verify.sh'), '#!/usr/bin/env bash\nexit 0\n')
    expect(await tampering(guard.beforeOracle())).toMatch(
      /^001-guarded: before the oracle, task file tasks\/001-guarded\/verify\.sh differs from the spec manifest \(SHA-256 [0-9a-f]{12}…, locked [0-9a-f]{12}…\)$/,
    )
  })

  test('a file written during the run with its own content stops it before the oracle, by its change time', async () => {
    const { task, root } = await folderTask()
    const guard = await TaskGuard.beforeRun(task, root)
    const verify = path.join(task.dir, 'verify.sh')
    await writeFile(verify, await readFile(verify))
    expect(await tampering(guard.beforeOracle())).toBe(
      '001-guarded: before the oracle, task file tasks/001-guarded/verify.sh was written during the run (its change time moved), even if its content is back',
    )
  })

  test('a file written after the look before the oracle is found by the look after it, by content or by change time', async () => {
    const { task, root } = await folderTask()
    const verify = path.join(task.dir, 'verify.sh')
    const rewritten = await TaskGuard.beforeRun(task, root)
    await rewritten.beforeOracle()
    await writeFile(verify, await readFile(verify))
    expect(await tampering(rewritten.afterOracle())).toBe(
      '001-guarded: after the oracle, task file tasks/001-guarded/verify.sh was written during the run (its change time moved), even if its content is back',
    )
    const changed = await TaskGuard.beforeRun(task, root)
    await changed.beforeOracle()
    await writeFile(verify, '#!/usr/bin/env bash\nexit 0\n')
    expect(await tampering(changed.afterOracle())).toMatch(/^001-guarded: after the oracle, task file tasks\/001-guarded\/verify\.sh differs from the spec manifest/)
  })
})

describe("a folder task's template, checked against its starting/ before the run", () => {
  test('a copy passes (nested folders, an executable, a link, a .git folder and a .git file of its own left out), and the guard names the folder it watches', async () => {
    const { task, root } = await folderTask({ 'value.txt': 'wrong\n', 'src/deep/a.js': 'a\n', 'run.sh': 'echo\n' })
    await chmod(path.join(task.startingDir, 'run.sh'), 0o755)
    await symlink('value.txt', path.join(task.startingDir, 'link'))
    const copy = await copyOf(task.startingDir)
    await mkdir(path.join(copy, '.git', 'objects'), { recursive: true })
    await writeFile(path.join(copy, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    const withGitFile = await copyOf(task.startingDir)
    await writeFile(path.join(withGitFile, '.git'), 'gitdir: /elsewhere\n')
    const guard = await TaskGuard.beforeRun(task, root)
    expect(guard.watchedTemplate).toBeUndefined()
    await guard.watchTemplate(copy)
    expect(guard.watchedTemplate).toBe(copy)
    await expect(cleanRun(task, root, withGitFile)).resolves.toBeInstanceOf(TaskGuard)
  })

  test('each kind of difference stops the run before it starts, naming the file: changed content, a changed mode alone, gone, added', async () => {
    const { task, root } = await folderTask({ 'value.txt': 'wrong\n', 'src/deep/a.js': 'a\n' })
    /** The message of a run whose template is a copy of starting/ with `change` made to it. */
    const failureWith = async (change: (template: string) => Promise<void>) => {
      const template = await copyOf(task.startingDir)
      await change(template)
      const guard = await TaskGuard.beforeRun(task, root)
      const message = await tampering(guard.watchTemplate(template))
      const prefix = `001-guarded: before the run, its template ${template} no longer holds what it was made from: `
      expect(message.startsWith(prefix), message).toBe(true)
      return message.slice(prefix.length)
    }
    expect(await failureWith((t) => writeFile(path.join(t, 'src', 'deep', 'a.js'), 'b\n'))).toBe('src/deep/a.js changed')
    expect(await failureWith((t) => chmod(path.join(t, 'value.txt'), 0o755))).toBe('value.txt changed')
    expect(await failureWith((t) => rm(path.join(t, 'src', 'deep', 'a.js')))).toBe('src/deep/a.js is missing')
    expect(await failureWith((t) => writeFile(path.join(t, 'src', 'planted.js'), 'x\n'))).toBe('src/planted.js was added')
    expect(await failureWith((t) => symlink('value.txt', path.join(t, 'unique.txt.link')))).toBe('unique.txt.link was added')
  })

  test('a file gone between the listing and its read (while the event loop turns) is missing, not an error', async () => {
    // 600 files: the template is read in one turn of 500 entries and one of the rest; the last one listed goes in between.
    const { task, root, template } = await folderTask({}, 599)
    const listed = readdirSync(template, { recursive: true, withFileTypes: true })
    expect(listed).toHaveLength(600)
    const last = listed.at(-1)!
    const guard = await TaskGuard.beforeRun(task, root)
    const watched = guard.watchTemplate(template)
    setImmediate(() => unlinkSync(path.join(last.parentPath, last.name)))
    expect(await tampering(watched)).toBe(`001-guarded: before the run, its template ${template} no longer holds what it was made from: ${last.name} is missing`)
  })

  test('reads a template and its starting/ 500 entries per turn of the event loop, and starting/ once per process', async () => {
    // 1,001 files (with unique.txt): each tree is read in three parts (two yields, after the 500th and the 1,000th
    // entry); the seal taken first (1,002 entries with the folder) yields once, after its 1,000th.
    const { task, root, template } = await folderTask({}, 1_000)
    // No task files: their hashing reads with promises, whose turns vary.
    const bare: FolderTask = { ...task, files: [] }
    const first = await TaskGuard.beforeRun(bare, root)
    expect(await eventLoopTurns(() => first.watchTemplate(template))).toBe(1 + 2 + 2)
    // Another template of the task (a folder never sealed): read in full, but starting/ is not read again.
    const second = await TaskGuard.beforeRun(bare, root)
    const another = await copyOf(task.startingDir)
    expect(await eventLoopTurns(() => second.watchTemplate(another))).toBe(1 + 2)
  })

  test('what a template must hold is what starting/ held when this process first read it', async () => {
    const { task, root, template } = await folderTask()
    await cleanRun(task, root, template)
    await writeFile(path.join(task.startingDir, 'value.txt'), 'right\n')
    // The task files moved, and are the reference of the next run; its template (a copy of the old starting/) passes.
    await expect(cleanRun(task, root, template)).resolves.toBeInstanceOf(TaskGuard)
    const copy = await copyOf(task.startingDir)
    const message = await tampering((await TaskGuard.beforeRun(task, root)).watchTemplate(copy))
    expect(message).toMatch(/no longer holds what it was made from: value\.txt changed$/)
  })

  test('two tasks each have their template checked against their own starting/', async () => {
    const one = await folderTask({ 'value.txt': 'one\n' })
    const two = await folderTask({ 'value.txt': 'two\n' })
    await expect(cleanRun(one.task, one.root, one.template)).resolves.toBeInstanceOf(TaskGuard)
    await expect(cleanRun(two.task, two.root, two.template)).resolves.toBeInstanceOf(TaskGuard)
  })
})

/** Runs git in `cwd`, as a fixed author, without the user's configuration. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  })
  return result.stdout
}

/** A git-fix task of `repo` whose parent commit is `base` (no task files: the template is what is guarded here). */
function gitFixTask(repo: string, base: string, id = '001-fixed'): GitFixTask {
  return {
    kind: 'git-fix',
    id,
    dir: path.join(repo, '..', id),
    prompt: 'Fix it.\n',
    files: [],
    metadata: GitFixMetadataSchema.parse({ ...minimalGitFixMetadata(), base }),
    repo,
    repository: 'repo',
    oracleDir: path.join(repo, '..', id, 'oracle'),
    goldPatch: null,
  }
}

/**
 * A repository whose first commit holds a file in a nested folder, an executable, a link with a non-ASCII target and
 * a submodule (a gitlink, no .gitmodules), and whose second commit changes the nested file.
 */
async function repository(): Promise<{ repo: string; first: string; second: string }> {
  const repo = path.join(await scratch('guard-repo-'), 'repo')
  await mkdir(path.join(repo, 'src', 'deep'), { recursive: true })
  await git(repo, 'init', '--quiet', '--initial-branch=main')
  await writeFile(path.join(repo, 'README.md'), '# r\n')
  await writeFile(path.join(repo, 'src', 'deep', 'a.js'), 'export const a = 1\n')
  await writeFile(path.join(repo, 'run.sh'), '#!/bin/sh\necho run\n')
  await chmod(path.join(repo, 'run.sh'), 0o755)
  await writeFile(path.join(repo, 'é.txt'), 'accent\n')
  await symlink('é.txt', path.join(repo, 'link'))
  await git(repo, 'add', '.')
  await git(repo, 'update-index', '--add', '--cacheinfo', `160000,${'c'.repeat(40)},vendor/sub`)
  await git(repo, 'commit', '--quiet', '-m', 'first')
  const first = (await git(repo, 'rev-parse', 'HEAD')).trim()
  await writeFile(path.join(repo, 'src', 'deep', 'a.js'), 'export const a = 2\n')
  await git(repo, 'commit', '--quiet', '-am', 'second')
  const second = (await git(repo, 'rev-parse', 'HEAD')).trim()
  return { repo, first, second }
}

/** The files of `commit` laid out in a fresh folder (`git archive`), as a template exported from it. */
async function exported(repo: string, commit: string): Promise<string> {
  const template = path.join(await scratch('guard-export-'), 'template')
  await mkdir(template)
  const archive = await execa('git', ['archive', '--format=tar', commit], { cwd: repo, encoding: 'buffer' })
  await execa('tar', ['-x', '-C', template], { input: archive.stdout })
  return template
}

describe("a git-fix task's template, checked against its parent commit's tree (git's modes and blob hashes)", () => {
  test('the tree laid out passes, with its submodule left out, and so does a clone holding .git/; each commit of a repository is its own', async () => {
    const { repo, first, second } = await repository()
    const tree = await git(repo, 'ls-tree', '-r', first)
    expect(tree).toMatch(/^120000 blob .*\tlink$/m)
    expect(tree).toMatch(/^100755 blob .*\trun\.sh$/m)
    expect(tree).toMatch(/^160000 commit .*\tvendor\/sub$/m)
    await expect(cleanRun(gitFixTask(repo, first), repo, await exported(repo, first))).resolves.toBeInstanceOf(TaskGuard)
    const clone = path.join(await scratch('guard-clone-'), 'clone')
    await git(repo, 'clone', '--quiet', '--no-checkout', repo, clone)
    await git(clone, 'checkout', '--quiet', first)
    await expect(cleanRun(gitFixTask(repo, first), repo, clone)).resolves.toBeInstanceOf(TaskGuard)
    const withGitFile = await exported(repo, first)
    await writeFile(path.join(withGitFile, '.git'), 'gitdir: /elsewhere\n')
    await expect(cleanRun(gitFixTask(repo, first), repo, withGitFile)).resolves.toBeInstanceOf(TaskGuard)
    await expect(cleanRun(gitFixTask(repo, second, '002-later'), repo, await exported(repo, second))).resolves.toBeInstanceOf(TaskGuard)
  })

  test('each difference from the commit stops the run before it starts, naming the file', async () => {
    const { repo, first } = await repository()
    /** The difference named when the template is the commit's files with `change` made to them. */
    const differenceWith = async (change: (template: string) => Promise<void>) => {
      const template = await exported(repo, first)
      await change(template)
      const guard = await TaskGuard.beforeRun(gitFixTask(repo, first), repo)
      const message = await tampering(guard.watchTemplate(template))
      return /no longer holds what it was made from: (.*)$/.exec(message)?.[1]
    }
    expect(await differenceWith((t) => writeFile(path.join(t, 'src', 'deep', 'a.js'), 'export const a = 3\n'))).toBe('src/deep/a.js changed')
    expect(await differenceWith((t) => chmod(path.join(t, 'run.sh'), 0o644))).toBe('run.sh changed')
    expect(await differenceWith((t) => chmod(path.join(t, 'README.md'), 0o755))).toBe('README.md changed')
    expect(
      await differenceWith(async (t) => {
        await rm(path.join(t, 'link'))
        await cp(path.join(t, 'é.txt'), path.join(t, 'link'))
      }),
    ).toBe('link changed')
    expect(await differenceWith((t) => rm(path.join(t, 'é.txt')))).toBe('é.txt is missing')
    expect(
      await differenceWith(async (t) => {
        await mkdir(path.join(t, 'vendor', 'sub'), { recursive: true })
        await writeFile(path.join(t, 'vendor', 'sub', 'x.js'), 'x\n')
      }),
    ).toBe('vendor/sub/x.js was added')
  })

  test("a bundle's temporary clone is removed once its tree is read", async () => {
    const { repo, first } = await repository()
    const bundle = path.join(await scratch('guard-bundle-'), 'repo.bundle')
    await git(repo, 'bundle', 'create', '--quiet', bundle, 'main')
    const template = await exported(repo, first)
    // The clone is made in os.tmpdir(): a folder of this test's own for the run.
    const tmp = await scratch('guard-tmp-')
    const before = process.env.TMPDIR
    process.env.TMPDIR = tmp
    try {
      await expect(cleanRun(gitFixTask(bundle, first), repo, template)).resolves.toBeInstanceOf(TaskGuard)
    } finally {
      if (before === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = before
    }
    expect(readdirSync(tmp)).toEqual([])
  })
})

describe('a template across the runs of one process: sealed when it matched and was old enough, found by its seal after the oracle', () => {
  test('a sealed template lets later runs start without a read, and is checked after the oracle by one lstat per entry', async () => {
    const { task, root, template } = await folderTask({}, 1_000)
    const bare: FolderTask = { ...task, files: [] }
    await outlastRacyMargin()
    const first = await TaskGuard.beforeRun(bare, root)
    expect(await eventLoopTurns(() => first.watchTemplate(template))).toBe(1 + 2 + 2)
    // The seal's look (1,002 entries) yields once, after its 1,000th; the content is not read again.
    expect(await eventLoopTurns(() => first.afterOracle())).toBe(1)
    const second = await TaskGuard.beforeRun(bare, root)
    expect(await eventLoopTurns(() => second.watchTemplate(template))).toBe(0)
    expect(second.watchedTemplate).toBe(template)
    expect(await eventLoopTurns(() => second.afterOracle())).toBe(1)
  })

  test("one task's seal never vouches for another's template", async () => {
    const sealed = await folderTask()
    await outlastRacyMargin()
    await cleanRun(sealed.task, sealed.root, sealed.template)
    const other = await folderTask()
    await writeFile(path.join(other.template, 'value.txt'), 'right\n')
    const message = await tampering((await TaskGuard.beforeRun(other.task, other.root)).watchTemplate(other.template))
    expect(message).toMatch(/before the run, its template .* no longer holds what it was made from: value\.txt changed$/)
  })

  test('a seal found moved after the oracle is dropped: the next run checks the template in full before it starts', async () => {
    const { task, root, template } = await folderTask()
    await outlastRacyMargin()
    const from = Date.now()
    await cleanRun(task, root, template)
    const to = Date.now()
    await writeFile(path.join(template, 'value.txt'), 'right\n')
    const after = await tampering(cleanRun(task, root, template))
    const dated = /^001-guarded: after the oracle, its template (.*) changed since this process checked it \(([^)]+)\): value\.txt changed$/.exec(after)
    expect(dated?.[1]).toBe(template)
    expect(Date.parse(dated![2]!)).toBeGreaterThanOrEqual(from)
    expect(Date.parse(dated![2]!)).toBeLessThanOrEqual(to)
    const before = await tampering((await TaskGuard.beforeRun(task, root)).watchTemplate(template))
    expect(before).toBe(`001-guarded: before the run, its template ${template} no longer holds what it was made from: value.txt changed`)
  })

  test('a sealed template changed and put back before the run began (beyond the racy margin) passes that run, and is sealed again', async () => {
    const { task, root, template } = await folderTask()
    const value = path.join(template, 'value.txt')
    await outlastRacyMargin()
    await cleanRun(task, root, template)
    await writeFile(value, 'right\n')
    await writeFile(value, 'wrong\n')
    await outlastRacyMargin()
    await expect(cleanRun(task, root, template)).resolves.toBeInstanceOf(TaskGuard)
    // Sealed again by that run: the next starts on its seal, which finds a change after the oracle.
    await writeFile(value, 'right\n')
    expect(await tampering(cleanRun(task, root, template))).toMatch(
      /^001-guarded: after the oracle, its template .* changed since this process checked it \(.*\): value\.txt changed$/,
    )
  })

  test('a young template (within the racy margin) is never trusted by a seal: every run that meets it checks it in full first', async () => {
    const { task, root, template } = await folderTask()
    const value = path.join(template, 'value.txt')
    // Two runs begun on it at once: the second reads it again.
    const one = await TaskGuard.beforeRun(task, root)
    await one.watchTemplate(template)
    await writeFile(value, 'right\n')
    expect(await tampering((await TaskGuard.beforeRun(task, root)).watchTemplate(template))).toMatch(/before the run, .*: value\.txt changed$/)
    // A whole run on it, then the next: read again too, after its look after the oracle read it.
    await writeFile(value, 'wrong\n')
    await cleanRun(task, root, template)
    await writeFile(value, 'right\n')
    expect(await tampering((await TaskGuard.beforeRun(task, root)).watchTemplate(template))).toMatch(/before the run, .*: value\.txt changed$/)
  })

  test('a young template changed during the run is found after the oracle, as changed during the run', async () => {
    const { task, root, template } = await folderTask()
    const guard = await TaskGuard.beforeRun(task, root)
    await guard.watchTemplate(template)
    await writeFile(path.join(template, 'value.txt'), 'right\n')
    await guard.beforeOracle()
    expect(await tampering(guard.afterOracle())).toBe(`001-guarded: after the oracle, its template ${template} changed during the run: value.txt changed`)
  })

  test('a seal taken in the very millisecond the run began is of that run: a change found after the oracle is dated to the run', async () => {
    const { task, root, template } = await folderTask()
    // No task files: nothing is read between the run's start and the seal.
    const bare: FolderTask = { ...task, files: [] }
    // Runs are begun until one is made and has its template sealed within one millisecond, while the template is
    // young (its seals racy, so never kept: each run takes its own).
    const young = Date.now() + RACY_MARGIN_MS / 2
    let guard: TaskGuard | undefined
    while (guard === undefined && Date.now() < young) {
      const began = Date.now()
      const candidate = await TaskGuard.beforeRun(bare, root)
      await candidate.watchTemplate(template)
      if (Date.now() === began) guard = candidate
    }
    expect(guard, 'no run began and sealed its template within one millisecond').toBeDefined()
    await writeFile(path.join(template, 'value.txt'), 'right\n')
    expect(await tampering(guard!.afterOracle())).toBe(`001-guarded: after the oracle, its template ${template} changed during the run: value.txt changed`)
  })

  test('a file added to the template and removed again during the run is found by the folder itself, named .', async () => {
    const { task, root, template } = await folderTask()
    const guard = await TaskGuard.beforeRun(task, root)
    await guard.watchTemplate(template)
    await writeFile(path.join(template, 'planted.txt'), 'x\n')
    await rm(path.join(template, 'planted.txt'))
    expect(await tampering(guard.afterOracle())).toBe(
      '001-guarded: after the oracle, template entry . was written during the run (its change time moved), even if its content is back',
    )
  })

  test('a run without a template watched has none to check', async () => {
    const { task, root } = await folderTask()
    const guard = await cleanRun(task, root)
    expect(guard.watchedTemplate).toBeUndefined()
  })
})

/** A package with a bin, made by a shell command (no npm, no sandbox). */
const RECIPE: DependencyRecipe = {
  prepare: 'mkdir -p node_modules/fake-runner/lib && cp runner.json node_modules/fake-runner/package.json && echo "console.log(1)" > node_modules/fake-runner/lib/cli.js',
  inputs: ['runner.json'],
  mount: 'node_modules',
}

/** A dependency folder prepared from RECIPE in a cache of its own, just now (so its seal is racy). */
async function prepared(): Promise<PreparedDependencies> {
  const dir = await scratch('guard-deps-')
  await writeFile(path.join(dir, 'runner.json'), `{"name":"fake-runner","version":"1.0.0","id":"${randomUUID()}"}\n`)
  return prepareDependencies(RECIPE, dir, { where: 'test', root: path.join(dir, 'cache'), sandboxed: false })
}

describe("the task's prepared dependency folder, by its seal before and after the oracle", () => {
  test('no folder: nothing to watch; an untouched folder passes a whole run', async () => {
    const { task, root } = await folderTask()
    const none = await TaskGuard.beforeRun(task, root)
    await none.watchDependencies(null)
    await none.beforeOracle()
    await expect(none.afterOracle()).resolves.toBeUndefined()
    const guard = await TaskGuard.beforeRun(task, root)
    await guard.watchDependencies(await prepared())
    await guard.beforeOracle()
    await expect(guard.afterOracle()).resolves.toBeUndefined()
  })

  test('a folder that no longer matches its manifest stops the run before it starts', async () => {
    const { task, root } = await folderTask()
    const dependencies = await prepared()
    await writeFile(path.join(dependencies.folder, 'fake-runner', 'lib', 'cli.js'), 'process.exit(0)\n')
    const guard = await TaskGuard.beforeRun(task, root)
    expect(await tampering(guard.watchDependencies(dependencies))).toBe(
      `001-guarded: before the run, its prepared node_modules ${dependencies.folder} no longer matches its manifest`,
    )
  })

  test('an entry written before the oracle stops it, naming the entry (the folder itself as .)', async () => {
    const { task, root } = await folderTask()
    const dependencies = await prepared()
    const nested = await TaskGuard.beforeRun(task, root)
    await nested.watchDependencies(dependencies)
    const cli = path.join(dependencies.folder, 'fake-runner', 'lib', 'cli.js')
    await writeFile(cli, await readFile(cli))
    expect(await tampering(nested.beforeOracle())).toBe(
      `001-guarded: before the oracle, its prepared node_modules ${dependencies.folder} had fake-runner/lib/cli.js written since it was checked against its manifest`,
    )
    const again = await prepared()
    const top = await TaskGuard.beforeRun(task, root)
    await top.watchDependencies(again)
    await writeFile(path.join(again.folder, 'planted.js'), 'x\n')
    expect(await tampering(top.beforeOracle())).toBe(
      `001-guarded: before the oracle, its prepared node_modules ${again.folder} had . written since it was checked against its manifest`,
    )
  })

  test('an entry written after the look before the oracle is found by the look after it', async () => {
    const { task, root } = await folderTask()
    const dependencies = await prepared()
    const guard = await TaskGuard.beforeRun(task, root)
    await guard.watchDependencies(dependencies)
    await guard.beforeOracle()
    await writeFile(path.join(dependencies.folder, 'fake-runner', 'package.json'), '{}\n')
    expect(await tampering(guard.afterOracle())).toBe(
      `001-guarded: after the oracle, its prepared node_modules ${dependencies.folder} had fake-runner/package.json written since it was checked against its manifest`,
    )
  })

  test('a racy seal (a folder made just now) is not trusted: around the oracle the content is checked against the manifest again', async () => {
    const { task, root } = await folderTask()
    const dependencies = await prepared()
    const guard = await TaskGuard.beforeRun(task, root)
    await guard.watchDependencies(dependencies)
    // A manifest that no longer describes the folder: only a check of the content against it finds that.
    const manifest = path.join(dependencies.store, 'manifest.json')
    const written = JSON.parse(await readFile(manifest, 'utf8')) as { files: unknown }
    await writeFile(manifest, JSON.stringify({ ...written, files: {} }))
    expect(await tampering(guard.beforeOracle())).toBe(`001-guarded: before the oracle, its prepared node_modules ${dependencies.folder} no longer matches its manifest`)
  })

  test('a seal older than the racy margin vouches for the folder: its content is not read again', async () => {
    const { task, root } = await folderTask()
    const dependencies = await prepared()
    await outlastRacyMargin()
    const first = await TaskGuard.beforeRun(task, root)
    // Sealed anew now that it is old enough (the seal made with it was racy).
    await first.watchDependencies(dependencies)
    const manifest = path.join(dependencies.store, 'manifest.json')
    const written = JSON.parse(await readFile(manifest, 'utf8')) as { files: unknown }
    await writeFile(manifest, JSON.stringify({ ...written, files: {} }))
    const guard = await TaskGuard.beforeRun(task, root)
    await guard.watchDependencies(dependencies)
    await guard.beforeOracle()
    await expect(guard.afterOracle()).resolves.toBeUndefined()
  })
})
