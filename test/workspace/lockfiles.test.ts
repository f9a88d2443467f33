import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { prepareDependencies, preparedRunner } from '../../src/workspace/dependencies.ts'
import { detectRecipe, LOCKFILES, PREPARE_COMMANDS } from '../../src/workspace/lockfiles.ts'
import { fillPackageManagerCaches, type PackageManagerCaches } from '../helpers/package-manager-caches.ts'
import { pinnedVitestVersion } from '../helpers/vitest-lockfile.ts'

// The lockfile a commit holds picks its package manager; each one's prepare command installs from the cache the user
// filled once (here filled by the pinned CLIs from a registry on 127.0.0.1 serving what this repository's `npm ci`
// cached), then runs without network, with those caches read-only, in the real sandbox.

let scratch: string
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'lockfiles-'))
})
afterAll(() => rm(scratch, { recursive: true, force: true }))

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(scratch, 'tree-'))
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await writeFile(path.join(dir, file), text)
  }
  return dir
}

const MANIFEST = '{"name":"x","devDependencies":{"vitest":"4.1.12"}}\n'

describe("the recipe a commit's lockfile asks for", () => {
  it('is npm ci for package-lock.json and for npm-shrinkwrap.json, which npm reads first', async () => {
    expect(await detectRecipe(await tree({ 'package.json': MANIFEST, 'package-lock.json': '{}' }))).toMatchObject({
      kind: 'recipe',
      recipe: { prepare: PREPARE_COMMANDS.npm, inputs: ['package.json', 'package-lock.json'], mount: 'node_modules' },
    })
    expect(await detectRecipe(await tree({ 'package.json': MANIFEST, 'package-lock.json': '{}', 'npm-shrinkwrap.json': '{}' }))).toMatchObject({
      kind: 'recipe',
      recipe: { inputs: ['package.json', 'npm-shrinkwrap.json'] },
    })
  })

  it('is pnpm for pnpm-lock.yaml, yarn classic for a v1 yarn.lock, and yarn berry (with its .yarnrc.yml) for one with __metadata', async () => {
    expect(await detectRecipe(await tree({ 'package.json': MANIFEST, 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" }))).toMatchObject({
      kind: 'recipe',
      lockfile: { manager: 'pnpm' },
      recipe: { prepare: PREPARE_COMMANDS.pnpm, inputs: ['package.json', 'pnpm-lock.yaml'] },
    })
    expect(await detectRecipe(await tree({ 'package.json': MANIFEST, 'yarn.lock': '# yarn lockfile v1\n' }))).toMatchObject({
      kind: 'recipe',
      lockfile: { manager: 'yarn classic' },
      recipe: { prepare: PREPARE_COMMANDS['yarn classic'], inputs: ['package.json', 'yarn.lock'] },
    })
    expect(await detectRecipe(await tree({ 'package.json': MANIFEST, 'yarn.lock': '__metadata:\n  version: 8\n', '.yarnrc.yml': 'nodeLinker: "node-modules"\n' }))).toMatchObject({
      kind: 'recipe',
      lockfile: { manager: 'yarn berry' },
      recipe: { prepare: PREPARE_COMMANDS['yarn berry'], inputs: ['package.json', 'yarn.lock', '.yarnrc.yml'] },
    })
  })

  it("refuses yarn berry's Plug'n'Play, saying which setting to change", async () => {
    const detected = await detectRecipe(await tree({ 'package.json': MANIFEST, 'yarn.lock': '__metadata:\n  version: 8\n' }))
    expect(detected).toEqual({ kind: 'problem', reason: expect.stringContaining("nodeLinker pnp (none: berry's default)") })
    expect(detected.kind === 'problem' && detected.reason).toMatch(/set "nodeLinker: node-modules" in \.yarnrc\.yml/)
  })

  it('names every lockfile it looked for when package.json has dependencies but the commit has none', async () => {
    const detected = await detectRecipe(await tree({ 'package.json': MANIFEST }))
    expect(detected.kind).toBe('problem')
    for (const file of LOCKFILES) expect(detected.kind === 'problem' && detected.reason).toContain(file)
  })

  it("says that bun's lockfile is not installed by --prepare auto, and what to pass instead", async () => {
    for (const file of ['bun.lock', 'bun.lockb']) {
      const detected = await detectRecipe(await tree({ 'package.json': MANIFEST, [file]: '{}\n' }))
      expect(detected.kind).toBe('problem')
      expect(detected.kind === 'problem' && detected.reason).toContain(`the commit's lockfile is bun's ${file}, which --prepare auto does not install`)
      expect(detected.kind === 'problem' && detected.reason).toContain('commit one of those, or pass --prepare with your own command')
    }
  })

  it('prepares nothing for a commit without package.json or whose package.json has no dependency', async () => {
    expect(await detectRecipe(await tree({ 'setup.py': '' }))).toEqual({ kind: 'none' })
    expect(await detectRecipe(await tree({ 'package.json': '{"name":"x","scripts":{"test":"node --test"}}' }))).toEqual({ kind: 'none' })
  })
})

describe('a node_modules prepared by the pinned pnpm and yarns from their caches, read-only and without network', () => {
  let caches: PackageManagerCaches
  const saved: Record<string, string | undefined> = {}
  beforeAll(async () => {
    caches = await fillPackageManagerCaches(path.join(scratch, 'caches'))
    for (const [name, value] of Object.entries(caches.env)) {
      saved[name] = process.env[name]
      process.env[name] = value
    }
  }, 300_000)
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  const cases = [
    ['pnpm', () => ({ 'pnpm-lock.yaml': caches.pnpmLock })],
    ['yarn classic', () => ({ 'yarn.lock': caches.yarnClassicLock })],
    ['yarn berry', () => ({ 'yarn.lock': caches.yarnBerryLock, '.yarnrc.yml': caches.yarnrc })],
  ] as const
  for (const [manager, lockfiles] of cases) {
    it(`${manager}: the folder holds this repository's Vitest, its runner is named, and the caches are as they were`, async () => {
      const source = await tree({ 'package.json': caches.packageJson, ...lockfiles() })
      const detected = await detectRecipe(source)
      expect(detected).toMatchObject({ kind: 'recipe', lockfile: { manager } })
      if (detected.kind !== 'recipe') return
      const before = await cacheListing()
      const prepared = await prepareDependencies(detected.recipe, source, { where: manager, root: path.join(scratch, `cache-${manager.replace(' ', '-')}`), sandboxed: true })
      const vitest = JSON.parse(await readFile(path.join(prepared.folder, 'vitest', 'package.json'), 'utf8')) as { version: string }
      expect(vitest.version).toBe(pinnedVitestVersion())
      expect(await preparedRunner(prepared, 'node_modules/.bin/vitest run --reporter=junit --outputFile={junit} {tests}')).toBe(`vitest ${pinnedVitestVersion()}`)
      expect(await cacheListing()).toEqual(before)
    }, 180_000)
  }

  async function cacheListing(): Promise<string[]> {
    const { readdir } = await import('node:fs/promises')
    const entries: string[] = []
    for (const dir of Object.values(caches.env)) entries.push(...(await readdir(dir, { recursive: true })).map((entry) => `${dir}/${entry}`))
    return entries.sort()
  }
})
