import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HarnessFailure } from '../../src/errors.ts'
import { GitFixMetadataSchema, readRenamedField } from '../../src/tasks/metadata.ts'
import { dependencyKey, dependencySeal, prepareDependencies, preparedRunner, type DependencyRecipe } from '../../src/workspace/dependencies.ts'
import { RACY_MARGIN_MS } from '../../src/workspace/stat-seal.ts'
import { minimalGitFixMetadata } from '../helpers/git-fix-metadata.ts'

// Prepared dependency folders with a prepare command that needs neither npm nor network (a shell script making a
// package with a bin), so the cache, the manifest check and the runner's version are tested on their own; the real
// `npm ci --offline` is in test/curate/vitest-repository.test.ts.
const RECIPE: DependencyRecipe = {
  prepare:
    'mkdir -p node_modules/fake-runner node_modules/.bin && cp runner.json node_modules/fake-runner/package.json && echo "console.log(1)" > node_modules/fake-runner/cli.js && ln -s ../fake-runner/cli.js node_modules/.bin/fake',
  inputs: ['runner.json'],
  mount: 'node_modules',
}

let scratch: string
let source: string
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'deps-'))
  source = path.join(scratch, 'source')
  await mkdir(source)
  await writeFile(path.join(source, 'runner.json'), '{"name":"fake-runner","version":"2.3.4"}\n')
})
afterAll(() => rm(scratch, { recursive: true, force: true }))

describe('prepared dependency folders', () => {
  it("are made once per input content and reused, and name the runner that owns the test command's program", async () => {
    const root = path.join(scratch, 'cache-1')
    const first = await prepareDependencies(RECIPE, source, { where: 'test', root })
    const again = await prepareDependencies(RECIPE, source, { where: 'test', root })
    expect(again).toEqual(first)
    expect(first.store).toMatch(new RegExp(`^${root}/content-[0-9a-f]{32}$`))
    expect(first.folder).toBe(path.join(first.store, 'project', 'node_modules'))
    expect(await preparedRunner(first, 'node_modules/.bin/fake run --out={junit} {tests}')).toBe('fake-runner 2.3.4')
    expect(await preparedRunner(first, './node_modules/.bin/fake')).toBe('fake-runner 2.3.4')
    expect(await preparedRunner(first, 'npx fake')).toBeNull()
    expect(await preparedRunner(first, 'node_modules/.bin/missing')).toBeNull()
  })

  it("key on the inputs' bytes: another lockfile is another folder", () => {
    expect(dependencyKey(RECIPE, { 'runner.json': 'a'.repeat(64) })).not.toBe(dependencyKey(RECIPE, { 'runner.json': 'b'.repeat(64) }))
    expect(dependencyKey(RECIPE, { 'runner.json': 'a'.repeat(64) })).not.toBe(dependencyKey({ ...RECIPE, prepare: `${RECIPE.prepare} # x` }, { 'runner.json': 'a'.repeat(64) }))
  })

  it('refuse an input whose SHA-256 is not the one the task records, naming the file', async () => {
    const run = prepareDependencies(RECIPE, source, { where: '001-x', root: path.join(scratch, 'cache-2'), expected: { 'runner.json': '0'.repeat(64) } })
    await expect(run).rejects.toThrow(HarnessFailure)
    await expect(run).rejects.toThrow(/001-x: runner\.json has SHA-256 [0-9a-f]{12}…, but the task's dependencies\.inputs says 000000000000…/)
  })

  it('say what failed when the command fails, and that it ran without network', async () => {
    const run = prepareDependencies({ ...RECIPE, prepare: 'echo no registry here >&2; exit 3' }, source, { where: '001-x', root: path.join(scratch, 'cache-3') })
    await expect(run).rejects.toThrow(/001-x: preparing node_modules with `echo no registry here >&2; exit 3` exited 3 \(it runs without network[^)]*\): no registry here/)
  })

  it("keep a failed prepare's whole output and npm's own log, and point npm's log line at the kept copy", async () => {
    // Real npm, offline, asked for a package no cache holds: it fails with ENOTCACHED and writes its debug log
    // into the building folder's HOME, which is removed after the failure.
    const root = path.join(scratch, 'cache-failed')
    const run = prepareDependencies({ ...RECIPE, prepare: 'npm install --offline --no-save task-outcome-never-published@1.0.0' }, source, { where: '001-x', root })
    const error = await run.then(
      () => null,
      (failure: Error) => failure,
    )
    expect(error).toBeInstanceOf(HarnessFailure)
    const kept = /its whole output and npm's logs are kept in ([^)]+)\)/.exec(error!.message)?.[1]
    expect(kept, error!.message).toBe(path.join(root, 'failed-prepares', path.basename(kept!)))
    const output = await readFile(path.join(kept!, 'output.log'), 'utf8')
    expect(output).toContain('ENOTCACHED')
    const logLine = /A complete log of this run can be found in: (\S+)/.exec(error!.message)?.[1]
    expect(logLine, error!.message).toBeDefined()
    expect(logLine!.startsWith(path.join(kept!, 'npm-logs'))).toBe(true)
    expect(await readFile(logLine!, 'utf8')).toContain('task-outcome-never-published')
  })

  it('refuse a command that exits 0 without making the folder', async () => {
    await expect(prepareDependencies({ ...RECIPE, prepare: 'true' }, source, { where: '001-x', root: path.join(scratch, 'cache-4') })).rejects.toThrow(
      '001-x: `true` exited 0 but made no folder node_modules',
    )
  })

  it('are made again by the next process when a published folder no longer matches its manifest', async () => {
    const root = path.join(scratch, 'cache-5')
    const made = await prepareDependencies(RECIPE, source, { where: 'test', root })
    // Written behind the harness's back; the next process checks the folder before its first use.
    await writeFile(path.join(made.folder, 'fake-runner', 'cli.js'), 'process.exit(0)\n')
    const result = await prepareInAnotherProcess(root)
    expect(result.stdout.trim(), result.all).toBe(made.folder)
    expect(result.stderr).toContain(`the prepared node_modules ${made.store} no longer matches its manifest; preparing it again`)
    expect(await readFile(path.join(made.folder, 'fake-runner', 'cli.js'), 'utf8')).toBe('console.log(1)\n')
  })
})

describe('the content-addressed store', () => {
  // Reads runner.json into the folder and ignores notes.txt: recipes that differ only in notes.txt make identical folders.
  const SHARED: DependencyRecipe = { ...RECIPE, inputs: ['runner.json', 'notes.txt'] }
  const sourceWith = async (name: string, runner: string, notes: string) => {
    const dir = path.join(scratch, name)
    await mkdir(dir, { recursive: true })
    await writeFile(path.join(dir, 'runner.json'), runner)
    await writeFile(path.join(dir, 'notes.txt'), notes)
    return dir
  }

  it('stores identical folders once: two keys whose installs come out the same share one folder, another content gets its own', async () => {
    const root = path.join(scratch, 'cache-shared')
    const runner = '{"name":"fake-runner","version":"2.3.4"}\n'
    const a = await prepareDependencies(SHARED, await sourceWith('shared-a', runner, 'a\n'), { where: 'a', root })
    const b = await prepareDependencies(SHARED, await sourceWith('shared-b', runner, 'b\n'), { where: 'b', root })
    const c = await prepareDependencies(SHARED, await sourceWith('shared-c', '{"name":"fake-runner","version":"9.9.9"}\n', 'a\n'), { where: 'c', root })
    expect(a.key).not.toBe(b.key)
    expect(b.store).toBe(a.store)
    expect((await stat(b.folder)).ino).toBe((await stat(a.folder)).ino)
    expect(c.store).not.toBe(a.store)
    expect((await readdir(root)).filter((name) => name.startsWith('content-')).sort()).toEqual([path.basename(a.store), path.basename(c.store)].sort())
    expect(JSON.parse(await readFile(path.join(root, b.key, 'entry.json'), 'utf8'))).toMatchObject({ content: path.basename(a.store), inputs: b.inputs })
    // The stored folder holds only what the recipe made, not the inputs that differ between the keys.
    expect(await readdir(path.join(a.store, 'project'))).toEqual(['node_modules'])
  })

  it('one key prepared by two processes at once ends as one stored folder, and no building folder is left', async () => {
    const root = path.join(scratch, 'cache-race')
    const results = await Promise.all([prepareInAnotherProcess(root), prepareInAnotherProcess(root)])
    for (const result of results) expect(result.exitCode, result.all).toBe(0)
    expect(results[1]!.stdout.trim()).toBe(results[0]!.stdout.trim())
    const names = await readdir(root)
    expect(names.filter((name) => name.startsWith('content-'))).toHaveLength(1)
    expect(names.filter((name) => name.startsWith('.building-'))).toEqual([])
  }, 60_000)

  it("reads a folder of the first layout (manifest.json and project/ in the key's own folder) as it is", async () => {
    const root = path.join(scratch, 'cache-first-layout')
    const made = await prepareDependencies(RECIPE, source, { where: 'test', root })
    const final = path.join(root, made.key)
    await rm(final, { recursive: true })
    await rename(made.store, final)
    const result = await prepareInAnotherProcess(root)
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout.trim()).toBe(path.join(final, 'project', 'node_modules'))
    expect(result.stderr).toBe('')
  }, 60_000)
})

describe("the prepared folder's seal (StatSeal, as the template's)", () => {
  it('is trusted once no entry changed within the racy margin of it, and names the entry written after it', async () => {
    const made = await prepareDependencies(RECIPE, source, { where: 'test', root: path.join(scratch, 'cache-seal-1') })
    // Just made: every entry changed within the margin, so each use checks the content again and seals anew.
    const fresh = await dependencySeal(made)
    expect(fresh.racy).toBe(true)
    expect(await dependencySeal(made)).not.toBe(fresh)
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100))
    const settled = await dependencySeal(made)
    expect(settled.racy).toBe(false)
    expect(await dependencySeal(made)).toBe(settled)
    expect(await settled.firstMoved()).toBeUndefined()
    await writeFile(path.join(made.folder, 'fake-runner', 'cli.js'), 'process.exit(0)\n')
    expect(await settled.firstMoved()).toBe('fake-runner/cli.js')
  })

  it('held racy, is never trusted: a change within the margin is found by the content check, which refuses the folder', async () => {
    const made = await prepareDependencies(RECIPE, source, { where: 'test', root: path.join(scratch, 'cache-seal-2') })
    await writeFile(path.join(made.folder, 'fake-runner', 'cli.js'), 'process.exit(0)\n')
    await expect(dependencySeal(made)).rejects.toThrow(/the prepared node_modules \S+ no longer matches its manifest/)
  })
})

/** Prepares RECIPE's folder under `root` in a process of its own (as another Vitest worker would); it prints the folder. */
async function prepareInAnotherProcess(root: string) {
  const script = path.join(scratch, `prepare-${path.basename(root)}.mts`)
  const module = path.resolve(import.meta.dirname, '../../src/workspace/dependencies.ts')
  await writeFile(
    script,
    `import { prepareDependencies } from ${JSON.stringify(module)}\nconst p = await prepareDependencies(${JSON.stringify(RECIPE)}, ${JSON.stringify(source)}, { where: 'test', root: ${JSON.stringify(root)} })\nconsole.log(p.folder)\n`,
  )
  return execa(path.resolve(import.meta.dirname, '../../node_modules/.bin/tsx'), [script], { reject: false, all: true })
}

describe('prepared dependencies met by several processes at once', () => {
  it('a broken folder found by six processes together is made again once, and every one of them gets the good folder', async () => {
    const root = path.join(scratch, 'cache-6')
    const made = await prepareDependencies(RECIPE, source, { where: 'test', root })
    await writeFile(path.join(made.folder, 'fake-runner', 'cli.js'), 'process.exit(0)\n')
    const results = await Promise.all(Array.from({ length: 6 }, () => prepareInAnotherProcess(root)))
    for (const result of results) {
      expect(result.exitCode, result.all).toBe(0)
      expect(result.stdout.trim()).toBe(made.folder)
    }
    expect(await readFile(path.join(made.folder, 'fake-runner', 'cli.js'), 'utf8')).toBe('console.log(1)\n')
  }, 120_000)
})

describe('the dependencies in metadata.json', () => {
  const base = minimalGitFixMetadata()
  it('defaults the mount to node_modules', () => {
    const parsed = GitFixMetadataSchema.parse({ ...base, dependencies: { prepare: 'npm ci --offline', inputs: { 'package-lock.json': 'c'.repeat(64) } } })
    expect(parsed.dependencies?.mount).toBe('node_modules')
  })
  it.each([['/abs/node_modules'], ['../node_modules'], ['a//b']])('refuses the mount %s, which is not a path inside the repository', (mount) => {
    const parsed = GitFixMetadataSchema.safeParse({ ...base, dependencies: { prepare: 'npm ci', inputs: { 'package-lock.json': 'c'.repeat(64) }, mount } })
    expect(parsed.success).toBe(false)
    expect(JSON.stringify(parsed.error?.issues)).toContain('a relative path inside the repository')
  })
  it('refuses dependencies without inputs or with an input hash that is not a SHA-256', () => {
    expect(GitFixMetadataSchema.safeParse({ ...base, dependencies: { prepare: 'npm ci', inputs: {} } }).success).toBe(false)
    expect(GitFixMetadataSchema.safeParse({ ...base, dependencies: { prepare: 'npm ci', inputs: { 'package-lock.json': 'abc' } } }).success).toBe(false)
  })
  it('reads the old name "toolchain" as "dependencies", with one line per file asking for the rename', () => {
    const lines: string[] = []
    const old = { ...base, toolchain: { prepare: 'npm ci', inputs: { 'package-lock.json': 'c'.repeat(64) } } }
    const file = `/sets/${process.pid}-${Date.now()}/001-x/metadata.json`
    const read = GitFixMetadataSchema.parse(readRenamedField(old, file, 'toolchain', 'dependencies', (line) => lines.push(line)))
    readRenamedField(old, file, 'toolchain', 'dependencies', (line) => lines.push(line))
    expect(read.dependencies).toEqual({ prepare: 'npm ci', inputs: { 'package-lock.json': 'c'.repeat(64) }, mount: 'node_modules' })
    expect(lines).toEqual([`${file}: "toolchain" is deprecated: rename it to "dependencies" (read as "dependencies" for now)`])
  })
  it('refuses a metadata.json that holds both names', () => {
    const both = {
      ...base,
      toolchain: { prepare: 'npm ci', inputs: { 'package-lock.json': 'c'.repeat(64) } },
      dependencies: { prepare: 'npm ci', inputs: { 'package-lock.json': 'c'.repeat(64) } },
    }
    const parsed = GitFixMetadataSchema.safeParse(readRenamedField(both, 'metadata.json', 'toolchain', 'dependencies', () => undefined))
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['toolchain'] })
  })
})
