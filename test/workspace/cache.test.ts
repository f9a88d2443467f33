import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa, type ResultPromise } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DependencyRecipe, PreparedDependencies } from '../../src/workspace/dependencies.ts'
import { PREPARE_COMMANDS } from '../../src/workspace/lockfiles.ts'
import { minimalGitFixMetadata } from '../helpers/git-fix-metadata.ts'
import { vitestProjectFiles } from '../helpers/vitest-lockfile.ts'

// The cache as `task-outcome cache` shows and prunes it, run by the CLI itself as a user runs it. Two real
// `npm ci --offline` installs of this repository's own Vitest (about 40 MB each, the slow part: what must come out
// byte-identical is npm's real output) from sources whose package.json differs beside the same lockfile, and a small
// recipe with a lockfile of its own. Each is prepared in a process of its own that then exits, as a select worker's
// would, so no live process holds them unless a test says so.
const repoRoot = path.resolve(import.meta.dirname, '../..')
const RECIPE: DependencyRecipe = { prepare: PREPARE_COMMANDS.npm, inputs: ['package.json', 'package-lock.json'], mount: 'node_modules' }
const SMALL: DependencyRecipe = { prepare: 'mkdir -p node_modules/small && cp small.lock node_modules/small/lock.txt', inputs: ['small.lock'], mount: 'node_modules' }

let scratch: string
let root: string
let setDir: string
let hostFile: string
let hostDir: string
const prepared: Record<'a' | 'b' | 'c', PreparedDependencies> = {} as never

async function source(name: string, files: { packageJson: string; packageLock: string }, description: string): Promise<string> {
  const dir = path.join(scratch, name)
  await mkdir(dir, { recursive: true })
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ ...JSON.parse(files.packageJson), description }, null, 2)}\n`)
  await writeFile(path.join(dir, 'package-lock.json'), files.packageLock)
  return dir
}

/** Prepares `recipe` from `dir` in a process of its own, which exits after it. */
async function prepareElsewhere(recipe: DependencyRecipe, dir: string): Promise<PreparedDependencies> {
  const module = path.join(repoRoot, 'src/workspace/dependencies.ts')
  const code = `import { prepareDependencies } from ${JSON.stringify(module)}\nconst p = await prepareDependencies(${JSON.stringify(recipe)}, ${JSON.stringify(dir)}, { where: ${JSON.stringify(dir)}, root: ${JSON.stringify(root)} })\nconsole.log(JSON.stringify(p))\n`
  const result = await execa(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', code], { cwd: repoRoot, all: true })
  return JSON.parse(result.stdout) as PreparedDependencies
}

/** A git-fix task folder whose metadata names `deps`' recipe, as select writes it. */
async function taskFolder(name: string, deps: PreparedDependencies): Promise<void> {
  const dir = path.join(setDir, name)
  await mkdir(path.join(dir, 'oracle', 'test'), { recursive: true })
  await writeFile(path.join(dir, 'task.md'), 'Fix it.\n')
  await writeFile(path.join(dir, 'oracle', 'test', 'a.test.js'), "import { test } from 'vitest'\ntest('a', () => {})\n")
  const metadata = {
    ...minimalGitFixMetadata(name.slice(0, 3), name.slice(4), path.join(scratch, 'repo')),
    dependencies: { prepare: RECIPE.prepare, inputs: deps.inputs, mount: deps.mount },
  }
  await writeFile(path.join(dir, 'metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`)
}

const cli = (...args: string[]) => execa(process.execPath, [path.join(repoRoot, 'bin/task-outcome.js'), 'cache', '--root', root, ...args], { reject: false, all: true })
const names = async () => (await readdir(root)).sort()

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'cache-cli-'))
  root = path.join(scratch, 'cache')
  setDir = path.join(scratch, 'set')
  await mkdir(path.join(scratch, 'repo'))
  const shared = vitestProjectFiles('cache-fixture')
  const small = path.join(scratch, 'c')
  await mkdir(small)
  await writeFile(path.join(small, 'small.lock'), 'another lockfile\n')
  ;[prepared.a, prepared.b, prepared.c] = await Promise.all([
    prepareElsewhere(RECIPE, await source('a', shared, 'task a')),
    prepareElsewhere(RECIPE, await source('b', shared, 'task b')),
    prepareElsewhere(SMALL, small),
  ])
  await taskFolder('001-uses-a', prepared.a)
  hostFile = path.join(scratch, 'host-secret.txt')
  hostDir = path.join(scratch, 'host-dir')
  await writeFile(hostFile, 'keep me\n')
  await mkdir(hostDir)
  await writeFile(path.join(hostDir, 'file.txt'), 'keep me too\n')
}, 600_000)
afterAll(() => rm(scratch, { recursive: true, force: true }))

describe('the content-addressed dependency cache', () => {
  it('stores one folder for two tasks with the same lockfile (one inode), and its own for another lockfile', async () => {
    expect(prepared.a.key).not.toBe(prepared.b.key)
    expect(prepared.b.store).toBe(prepared.a.store)
    expect((await stat(path.join(prepared.b.folder, 'vitest', 'package.json'))).ino).toBe((await stat(path.join(prepared.a.folder, 'vitest', 'package.json'))).ino)
    expect(prepared.c.store).not.toBe(prepared.a.store)
    expect((await names()).filter((name) => name.startsWith('content-'))).toHaveLength(2)
  })
})

describe('task-outcome cache', () => {
  it('show lists every entry with its size, its users and the total', async () => {
    const result = await cli('show', '--tasks', setDir)
    expect(result.exitCode, result.all).toBe(0)
    const row = (name: string) => result.stdout.split('\n').find((line) => line.startsWith(name)) ?? ''
    expect(row(prepared.a.key)).toMatch(/dependencies\s+\d+\.\d kB\s+\d+ min ago\s+001-uses-a; → content-/)
    expect(row(path.basename(prepared.a.store))).toMatch(
      new RegExp(`stored folder\\s+(3\\d|4\\d)\\.\\d MB\\s+\\d+ min ago\\s+001-uses-a; entries (${prepared.a.key}, ${prepared.b.key}|${prepared.b.key}, ${prepared.a.key})`),
    )
    expect(row(path.basename(prepared.c.store))).toMatch(new RegExp(`stored folder\\s+\\d+\\.\\d kB\\s+\\d+ min ago\\s+entry ${prepared.c.key}$`))
    expect(result.stdout).toMatch(/^total \d+\.\d MB in 5 entries \(/m)
    // Bare `cache` is `cache show`.
    const bare = await cli()
    expect(bare.stdout).toContain(path.basename(prepared.a.store))
  })

  it('prune --dry-run names what it would remove and removes nothing', async () => {
    const before = await names()
    const result = await cli('prune', '--tasks', setDir, '--dry-run')
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toContain(`would remove ${prepared.b.key} (dependencies,`)
    expect(result.stdout).toContain(`would remove ${path.basename(prepared.c.store)} (stored folder,`)
    expect(result.stdout).not.toContain(`would remove ${path.basename(prepared.a.store)}`)
    expect(result.stdout).toMatch(/^would free \d+\.\d kB in 3 entries/m)
    expect(await names()).toEqual(before)
  })

  it('prune keeps what the tasks use and what a running process uses, removes the rest, and follows no link planted in the cache', async () => {
    // Planted in the cache: a link inside the unused stored folder and one at the top level, both to the host's files.
    await symlink(hostFile, path.join(prepared.c.folder, 'planted-link'))
    const topLink = path.join(root, `content-${'0'.repeat(32)}`)
    await symlink(hostDir, topLink)
    // Another process uses b's recipe (its own prepare, which marks it) and stays alive.
    const holder = holdPrepared(path.join(scratch, 'b'))
    try {
      await holderReady(holder)
      const result = await cli('prune', '--tasks', setDir)
      expect(result.exitCode, result.all).toBe(0)
      expect(result.stdout).toMatch(new RegExp(`kept ${prepared.b.key} \\(dependencies\\): in use by a running process \\(${holder.pid}\\)`))
      expect(result.stdout).toContain(`removed ${prepared.c.key} (dependencies,`)
      expect(result.stdout).toContain(`removed ${path.basename(prepared.c.store)} (stored folder,`)
      expect(result.stdout).toMatch(/^freed \d+\.\d kB in 2 entries/m)
    } finally {
      holder.kill('SIGTERM')
      await holder.catch(() => undefined)
    }
    expect(await names()).toEqual([path.basename(topLink), '.uses', prepared.a.key, prepared.b.key, path.basename(prepared.a.store)].sort())
    expect(await readFile(hostFile, 'utf8')).toBe('keep me\n')
    expect(await readFile(path.join(hostDir, 'file.txt'), 'utf8')).toBe('keep me too\n')
    expect((await lstat(topLink)).isSymbolicLink()).toBe(true)
    // The holder is gone: its recipe goes now, and the stored folder stays while a's recipe names it.
    const again = await cli('prune', '--tasks', setDir)
    expect(again.stdout).toContain(`removed ${prepared.b.key} (dependencies,`)
    expect(await names()).toEqual([path.basename(topLink), '.uses', prepared.a.key, path.basename(prepared.a.store)].sort())
    expect((await readdir(path.join(root, '.uses'))).filter((name) => name.includes('@'))).toEqual([])
  })

  it('refuses a prune without a criterion, and an --older-than that is not a number of days, in one line', async () => {
    const none = await cli('prune')
    expect(none.exitCode).toBe(1)
    expect(none.stderr.trim()).toBe(
      'task-outcome: cache prune: give --tasks <folder...> (remove what those tasks do not use) or --older-than <days> (remove what was not used for that long), or both',
    )
    const bad = await cli('prune', '--older-than', 'soon')
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr.trim()).toBe('task-outcome: cache prune: --older-than takes a number of days (0 or more), not "soon"')
  })
})

/** A process that prepares (finds) the recipe of `dir` in the cache, prints "ready" and waits to be killed (node itself: its pid is the marker's). */
function holdPrepared(dir: string): ResultPromise {
  const module = path.join(repoRoot, 'src/workspace/dependencies.ts')
  const code = `import { prepareDependencies } from ${JSON.stringify(module)}\nawait prepareDependencies(${JSON.stringify(RECIPE)}, ${JSON.stringify(dir)}, { where: 'holder', root: ${JSON.stringify(root)} })\nconsole.log('ready')\nsetInterval(() => {}, 1000)\n`
  return execa(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', code], { cwd: repoRoot, reject: false, all: true })
}

async function holderReady(holder: ResultPromise): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve()
    })
    void holder.then((result) => reject(new Error(`the holder exited before it was ready: ${result.all}`)))
  })
}
