import { existsSync } from 'node:fs'
import { chmod, cp, lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { HarnessFailure } from '../errors.ts'
import { isolatedSandbox, probeSandbox, runProcess, SANDBOX_HOST_PATH, toolchainMounts, UNSANDBOXED_HOST } from '../sandbox/index.ts'
import type { Task } from '../tasks/task.ts'
import { parentTemplate, templateRoot } from './template.ts'
import { discardPublished } from './discard.ts'
import { StatSeal } from './stat-seal.ts'
import { packageManagerSetup, packageManagerVersions, pnpmStoreFolder } from './package-managers.ts'
import { sha256, sha256Hasher } from '../shared/sha256.ts'
import { markInUse } from './cache-uses.ts'

/**
 * Prepared dependency folders: what a task's tests need beyond the repository
 * (a JavaScript project's `node_modules`), made once per (prepare command,
 * input files, platform) by running the task's `dependencies.prepare` in a
 * folder holding only the input files (the lockfile), inside a sandbox
 * without network (`npm ci --offline` installs from npm's cache, mounted
 * read-only), and published atomically beside the templates. Every process
 * that needs it (the agent, the arm setup, the oracle, harvest) gets it
 * mounted read-only at `<workspace>/<mount>`; the folder's content is checked
 * against the manifest written when it was made, once per process, and sealed
 * then (`StatSeal`, as the templates are), and the seal is checked before
 * every run and every oracle.
 *
 * The cache is content-addressed in two levels: `deps-<key>/entry.json` (the
 * key: what determines the bytes) names the stored folder,
 * `content-<digest>/` (the digest of its manifest: every file's path, mode
 * and bytes), which holds `manifest.json` and `project/<mount>`. Recipes whose
 * installs come out byte-identical (another package.json beside the same
 * lockfile, another Node major) share one stored folder. A `deps-<key>/` of
 * the first layout (`manifest.json` and `project/` in the key's own folder)
 * is still read as it is.
 */

/** Bumped whenever what a recipe's key covers changes, so old entries are not reused. */
export const DEPENDENCIES_FORMAT = 1

/** Bumped whenever a stored folder's layout changes (part of its digest). */
export const CONTENT_FORMAT = 1

/** A stored folder's name: `content-` and 32 hex digits of its manifest's digest. */
export const CONTENT_NAME = /^content-[0-9a-f]{32}$/

/** What `deps-<key>/entry.json` holds: the recipe and the stored folder it prepared. */
export interface DependencyEntry {
  readonly format: number
  readonly prepare: string
  readonly mount: string
  readonly inputs: Readonly<Record<string, string>>
  /** The stored folder's name (`content-…`), beside the entry. */
  readonly content: string
}

/** How to make a dependency folder: a task's `dependencies`, or harvest's `--prepare` options. */
export interface DependencyRecipe {
  /** Run by bash in a folder holding only `inputs`. */
  readonly prepare: string
  /** Repository paths of the files it reads (`package.json`, `package-lock.json`). */
  readonly inputs: readonly string[]
  /** The folder it makes, relative to the repository root (`node_modules`). */
  readonly mount: string
}

/** A published dependency folder. */
export interface PreparedDependencies {
  /** The folder as the host sees it (what gets mounted). */
  readonly folder: string
  /** Where it goes in a workspace, relative to its root. */
  readonly mount: string
  /** The cache key (the name of its entry, `deps-…`). */
  readonly key: string
  /** The stored folder holding `manifest.json` and `project/<mount>` (`content-…`, or the key's own folder in the first layout). */
  readonly store: string
  /** Each input's SHA-256, by repository path. */
  readonly inputs: Readonly<Record<string, string>>
}

/** How to prepare one. */
export interface PrepareOptions {
  /** The PATH the prepare command gets (the oracle's resolved toolchain); default: the host's, cleaned of `node_modules/.bin`. */
  readonly pathVariable?: string
  /** Run the command in a sandbox without network (default: wherever this machine has a working sandbox). */
  readonly sandboxed?: boolean
  /** The SHA-256 each input must have (the task's metadata); a mismatch is a harness failure. */
  readonly expected?: Readonly<Record<string, string>>
  /** Limit for the command (default 10 minutes). */
  readonly timeoutMs?: number
  /** The cache folder (default `templateRoot()`). */
  readonly root?: string
  /** Names the task in messages. */
  readonly where: string
}

/** npm's cache folder, which the prepare command reads (read-only) so `npm ci --offline` needs no network. */
export function npmCacheFolder(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env.npm_config_cache ?? env.NPM_CONFIG_CACHE
  return configured !== undefined && configured !== '' ? path.resolve(configured) : path.join(env.HOME ?? os.homedir(), '.npm')
}

/** The cache key: format, command, mount, every input's path and bytes, platform, architecture, Node's major version and the pinned package managers. */
export function dependencyKey(recipe: DependencyRecipe, inputs: Readonly<Record<string, string>>): string {
  const hash = sha256Hasher().update(
    `deps\0${DEPENDENCIES_FORMAT}\0${recipe.prepare}\0${recipe.mount}\0${process.platform}\0${process.arch}\0${process.versions.node.split('.')[0]}\0${packageManagerVersions()}\0`,
  )
  for (const file of Object.keys(inputs).sort()) hash.update(`${file}\0${inputs[file]}\0`)
  return `deps-${hash.digest('hex').slice(0, 32)}`
}

/** Every file below `dir` as `mode sha256` (links as their target), by `/`-separated relative path. */
async function folderTree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  for (const entry of entries) {
    if (entry.isDirectory()) continue
    const file = path.join(entry.parentPath, entry.name)
    const relative = path.relative(dir, file).split(path.sep).join('/')
    const info = await lstat(file)
    files[relative] = info.isSymbolicLink() ? `link ${await readlink(file)}` : `${(info.mode & 0o777).toString(8)} ${sha256(await readFile(file))}`
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)))
}

/** The manifest written beside a stored folder (the first layout's also names `prepare` and `inputs`). */
interface Manifest {
  readonly format: number
  readonly mount: string
  readonly files: Readonly<Record<string, string>>
}

/** The stored folder's name for a manifest: the digest of its format, mount and every file's path, mode and bytes. */
function contentName(mount: string, files: Readonly<Record<string, string>>): string {
  return `content-${sha256(`content\0${CONTENT_FORMAT}\0${mount}\0${JSON.stringify(files)}`).slice(0, 32)}`
}

/**
 * The stored folder the entry `final` names: the key's own folder in the
 * first layout, the `content-…` folder its entry.json names, or null when
 * there is no entry (or one this version cannot read: it is made again).
 */
export async function entryStore(final: string): Promise<string | null> {
  if (existsSync(path.join(final, 'manifest.json'))) return final
  const entry = await readFile(path.join(final, 'entry.json'), 'utf8').then(
    (text) => JSON.parse(text) as Partial<DependencyEntry>,
    () => null,
  )
  if (entry === null || typeof entry.content !== 'string' || !CONTENT_NAME.test(entry.content)) return null
  return path.join(path.dirname(final), entry.content)
}

/**
 * Per process: each published folder's seal (`StatSeal`, as the templates
 * have), taken just before a check of its content against its manifest that
 * passed; null when the check failed. Only the harness's memory holds it.
 */
const verified = new Map<string, Promise<StatSeal | null>>()

/** Checks a published folder against its manifest, sealed first (so a write during the check moves the seal); null when it does not match. */
async function checkedSeal(final: string, mount: string): Promise<StatSeal | null> {
  const manifest = JSON.parse(await readFile(path.join(final, 'manifest.json'), 'utf8')) as Manifest
  const dir = path.join(final, 'project', mount)
  const seal = await StatSeal.take(dir)
  return JSON.stringify(await folderTree(dir)) === JSON.stringify(manifest.files) ? seal : null
}

/**
 * Runs the prepare command in `project` (sandboxed: no network; npm's cache,
 * the pnpm store and yarn's caches read-only; the pinned pnpm and yarn first
 * on PATH).
 */
async function runPrepare(recipe: DependencyRecipe, building: string, options: PrepareOptions): Promise<void> {
  const project = path.join(building, 'project')
  const home = path.join(building, 'home')
  const bin = path.join(building, 'bin')
  const storeView = path.join(building, 'pnpm-store')
  await mkdir(home, { recursive: true })
  await mkdir(bin, { recursive: true })
  const sandboxed =
    options.sandboxed ??
    (await probeSandbox().then(
      () => true,
      () => false,
    ))
  const managers = packageManagerSetup(process.execPath, storeView)
  for (const [name, script] of Object.entries(managers.bin)) {
    await writeFile(path.join(bin, name), script)
    await chmod(path.join(bin, name), 0o755)
  }
  for (const mount of managers.mounts) await mkdir(mount.target, { recursive: true })
  const pathVariable = `${bin}${path.delimiter}${options.pathVariable ?? process.env.PATH ?? SANDBOX_HOST_PATH}`
  const cache = npmCacheFolder()
  const env: Record<string, string> = {
    PATH: pathVariable,
    HOME: home,
    LANG: 'C.UTF-8',
    CI: '1',
    npm_config_cache: cache,
    npm_config_logs_dir: path.join(home, 'npm-logs'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...managers.env,
    // Without a sandbox, pnpm reads the user's store itself.
    ...(sandboxed ? {} : { npm_config_store_dir: pnpmStoreFolder() }),
  }
  const sandbox = sandboxed
    ? isolatedSandbox({
        writable: [building],
        readOnly: [...toolchainMounts(options.pathVariable ?? process.env.PATH ?? SANDBOX_HOST_PATH, [root(options)]), ...(existsSync(cache) ? [cache] : []), ...managers.readOnly],
        mounts: managers.mounts,
      })
    : UNSANDBOXED_HOST
  const result = await runProcess(
    { file: sandboxed ? '/bin/bash' : 'bash', args: ['-c', recipe.prepare] },
    { cwd: project, env: sandboxed ? { ...env, TMPDIR: '/tmp' } : env, timeoutMs: options.timeoutMs ?? 600_000, sandbox },
  )
  if (result.exitCode !== 0 || result.timedOut) {
    const kept = await keepFailedPrepare(building, home, result.all, options)
    throw new HarnessFailure(
      'setup',
      `${options.where}: preparing ${recipe.mount} with \`${recipe.prepare}\` ${result.timedOut ? 'timed out' : `exited ${result.exitCode}`} ` +
        `(it runs without network, from the caches a user fills once with network: npm's ${cache}, the pnpm store ${pnpmStoreFolder()} or yarn's cache; ` +
        `an npm lockfile needs "resolved" and "integrity" for every package; its whole output and npm's logs are kept in ${kept.dir}): ` +
        kept.output.slice(-1500),
      { retryable: false },
    )
  }
  const made = await lstat(path.join(project, recipe.mount)).catch(() => null)
  if (made === null || !made.isDirectory()) {
    throw new HarnessFailure('setup', `${options.where}: \`${recipe.prepare}\` exited 0 but made no folder ${recipe.mount}`, { retryable: false })
  }
}

const root = (options: Pick<PrepareOptions, 'root'>) => options.root ?? templateRoot()

/**
 * Keeps what a failed prepare leaves to read (the building folder is removed after it): its whole output and
 * npm's log files, in `<cache>/failed-prepares/<building folder's name>/`. The output's paths into the
 * building folder's npm-logs (npm's "A complete log of this run can be found in: …") name the kept copies.
 */
async function keepFailedPrepare(building: string, home: string, output: string, options: PrepareOptions): Promise<{ dir: string; output: string }> {
  const dir = path.join(root(options), 'failed-prepares', path.basename(building).replace(/^\.building-/, ''))
  const logs = path.join(home, 'npm-logs')
  await mkdir(dir, { recursive: true })
  if (existsSync(logs)) await cp(logs, path.join(dir, 'npm-logs'), { recursive: true, dereference: false, verbatimSymlinks: true })
  const pointed = output.split(logs).join(path.join(dir, 'npm-logs'))
  await writeFile(path.join(dir, 'output.log'), pointed)
  return { dir, output: pointed }
}

/**
 * The dependency folder of `recipe` for the input files found in `sourceDir`
 * (a template: the parent commit's files), made and published once, reused
 * after. A published folder that no longer matches its manifest is set aside
 * and made again.
 */
export async function prepareDependencies(recipe: DependencyRecipe, sourceDir: string, options: PrepareOptions): Promise<PreparedDependencies> {
  const inputs: Record<string, string> = {}
  const bytes = new Map<string, Buffer>()
  for (const file of recipe.inputs) {
    const content = await readFile(path.join(sourceDir, file)).catch(() => null)
    if (content === null) throw new HarnessFailure('setup', `${options.where}: the dependency input ${file} is not in the repository at this commit`, { retryable: false })
    bytes.set(file, content)
    inputs[file] = sha256(content)
    const expected = options.expected?.[file]
    if (expected !== undefined && expected !== inputs[file]) {
      throw new HarnessFailure('setup', `${options.where}: ${file} has SHA-256 ${inputs[file]!.slice(0, 12)}…, but the task's dependencies.inputs says ${expected.slice(0, 12)}…`, {
        retryable: false,
      })
    }
  }
  const cacheRoot = root(options)
  const key = dependencyKey(recipe, inputs)
  const final = path.join(cacheRoot, key)
  const prepared = (store: string): PreparedDependencies => ({ folder: path.join(store, 'project', recipe.mount), mount: recipe.mount, key, store, inputs })
  markInUse(cacheRoot, key)
  // Several processes (Vitest's workers, harvest's) may meet the same folder at once: one that finds it broken
  // replaces it only if it is still the folder it checked, and one whose own or another's fresh folder was replaced
  // under it looks again, so no process ever discards a folder it did not check.
  for (let attempt = 1; ; attempt++) {
    const store = await entryStore(final)
    if (store !== null) {
      markInUse(cacheRoot, path.basename(store))
      const memo = verified.get(store)
      if (memo !== undefined && (await memo) !== null) return prepared(store)
      const checked = await folderIdentity(store)
      if (checked !== null && existsSync(path.join(store, 'manifest.json'))) {
        const check = checkedSeal(store, recipe.mount).catch(() => null)
        verified.set(store, check)
        if ((await check) !== null) return prepared(store)
        if (attempt < 3 && (await folderIdentity(store)) !== checked) continue
        process.stderr.write(`task-outcome: the prepared ${recipe.mount} ${store} no longer matches its manifest; preparing it again\n`)
        await discardPublished(store, cacheRoot)
        if (store === final) process.stderr.write(`task-outcome: ${final} was of the cache's first layout; it is stored content-addressed from now on\n`)
      }
    }
    const made = await publishPrepared(recipe, bytes, inputs, final, options)
    const identity = await folderIdentity(made)
    const check = checkedSeal(made, recipe.mount).catch(() => null)
    verified.set(made, check)
    if ((await check) !== null) return prepared(made)
    if (attempt < 3 && (await folderIdentity(made)) !== identity) continue
    throw new HarnessFailure('setup', `${options.where}: the prepared ${recipe.mount} ${made} does not match the manifest just written`, { retryable: false })
  }
}

/** A folder's device and inode ("dev:ino"), which a replacement (a rename over it) changes; null when absent. */
async function folderIdentity(dir: string): Promise<string | null> {
  const info = await lstat(dir, { bigint: true }).catch(() => null)
  return info === null ? null : `${info.dev}:${info.ino}`
}

/**
 * Builds the folder in a private place, stores it as `content-<digest>` with one rename (a folder of the same
 * digest already stored, another process's or another recipe's, is kept and the new one dropped), then points the
 * entry `final` at it (its entry.json replaced with one rename). Returns the stored folder.
 */
async function publishPrepared(
  recipe: DependencyRecipe,
  bytes: ReadonlyMap<string, Buffer>,
  inputs: Readonly<Record<string, string>>,
  final: string,
  options: PrepareOptions,
): Promise<string> {
  const cacheRoot = root(options)
  await mkdir(cacheRoot, { recursive: true })
  const building = await mkdtemp(path.join(cacheRoot, `.building-${path.basename(final)}-`))
  let store: string
  try {
    for (const [file, content] of bytes) {
      await mkdir(path.dirname(path.join(building, 'project', file)), { recursive: true })
      await writeFile(path.join(building, 'project', file), content)
    }
    await runPrepare(recipe, building, options)
    for (const scratch of ['home', 'bin', 'pnpm-store']) await rm(path.join(building, scratch), { recursive: true, force: true })
    // The inputs differ between recipes whose folders do not (a package.json's version): only the folder is stored.
    for (const file of bytes.keys()) await rm(path.join(building, 'project', file), { force: true })
    const files = await folderTree(path.join(building, 'project', recipe.mount))
    const manifest: Manifest = { format: CONTENT_FORMAT, mount: recipe.mount, files }
    await writeFile(path.join(building, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    store = path.join(cacheRoot, contentName(recipe.mount, files))
    markInUse(cacheRoot, path.basename(store))
    try {
      await rename(building, store)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // The same folder is stored already (another process's, another recipe's): keep that one.
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !existsSync(path.join(store, 'manifest.json'))) throw error
      await rm(building, { recursive: true, force: true })
    }
  } catch (error) {
    await rm(building, { recursive: true, force: true })
    throw error
  }
  const entry: DependencyEntry = { format: DEPENDENCIES_FORMAT, prepare: recipe.prepare, mount: recipe.mount, inputs, content: path.basename(store) }
  await mkdir(final, { recursive: true })
  const written = path.join(final, `.entry-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
  await writeFile(written, `${JSON.stringify(entry, null, 2)}\n`)
  await rename(written, path.join(final, 'entry.json'))
  return store
}

/**
 * The prepared folder's seal for a run (`TaskGuard`): the one this process
 * took when the folder's content last matched its manifest, or, when that
 * seal cannot vouch for it any more (racy: an entry changed within
 * `RACY_MARGIN_MS` of it, or the folder itself moved), a new one after the
 * content is checked again. A folder that no longer matches is tampering.
 */
export async function dependencySeal(prepared: PreparedDependencies): Promise<StatSeal> {
  const final = prepared.store
  const sealed = await (verified.get(final) ?? Promise.resolve(null))
  if (sealed === null) throw new HarnessFailure('tampered', `the prepared ${prepared.mount} ${final} was not verified`, { retryable: false })
  if (!sealed.racy && !sealed.folderMoved()) return sealed
  const check = checkedSeal(final, prepared.mount).catch(() => null)
  verified.set(final, check)
  const again = await check
  if (again === null) throw new HarnessFailure('tampered', `the prepared ${prepared.mount} ${final} no longer matches its manifest`, { retryable: false })
  return again
}

/** Whether the prepared folder's content still matches its manifest (a racy seal's holder checks this instead of trusting it). */
export async function dependencyContentMatches(prepared: PreparedDependencies): Promise<boolean> {
  return (await checkedSeal(prepared.store, prepared.mount).catch(() => null)) !== null
}

/**
 * Makes `<dir>/<mount>` ready for the folder: an empty mount point (a sandbox
 * binds the folder there read-only), or, for processes run without a sandbox,
 * a symbolic link to it. Whatever was at that path is removed first.
 */
export async function placeDependencies(prepared: PreparedDependencies, dir: string, how: 'mount-point' | 'link'): Promise<void> {
  const target = path.join(dir, prepared.mount)
  await rm(target, { recursive: true, force: true })
  await mkdir(path.dirname(target), { recursive: true })
  if (how === 'link') await symlink(prepared.folder, target)
  else await mkdir(target)
}

/** The read-only bind of the folder at `<dir>/<mount>` (as `SandboxSpec.mounts` takes it). */
export function dependencyMount(prepared: PreparedDependencies, dir: string): { readonly source: string; readonly target: string } {
  return { source: prepared.folder, target: path.join(dir, prepared.mount) }
}

/**
 * The test runner's name and version when the test command runs a program of
 * the prepared folder (`node_modules/.bin/vitest …` → `vitest 4.1.12`): read
 * from the package that program belongs to, inside the prepared folder,
 * never from anything a run could write. Null when the command runs
 * something else.
 */
export async function preparedRunner(prepared: PreparedDependencies, testCommand: string): Promise<string | null> {
  const first = testCommand.trim().split(/\s+/)[0] ?? ''
  const prefix = `${prepared.mount}/`
  const program = first.startsWith('./') ? first.slice(2) : first
  if (!program.startsWith(prefix)) return null
  const top = await realpath(prepared.folder).catch(() => null)
  if (top === null) return null
  const owner = await owningPackage(top, path.join(prepared.folder, program.slice(prefix.length)))
  if (owner !== null) return owner
  // pnpm's and yarn's `.bin` entries can be shell scripts, not links: the package whose `bin` names the program.
  const bin = program.slice(prefix.length).match(/^\.bin\/([^/]+)$/)?.[1]
  return bin === undefined ? null : binOwner(top, bin)
}

/** The name and version of the package `file` (resolved) belongs to, inside `top`; null when none. */
async function owningPackage(top: string, file: string): Promise<string | null> {
  const resolved = await realpath(file).catch(() => null)
  if (resolved === null) return null
  for (let dir = path.dirname(resolved); dir.startsWith(top + path.sep); dir = path.dirname(dir)) {
    const manifest = await readManifest(dir)
    if (manifest !== null && typeof manifest.name === 'string' && typeof manifest.version === 'string') return `${manifest.name} ${manifest.version}`
  }
  return null
}

const readManifest = (dir: string) =>
  readFile(path.join(dir, 'package.json'), 'utf8').then(
    (text) => JSON.parse(text) as { name?: unknown; version?: unknown; bin?: unknown },
    () => null,
  )

/** The top-level package of `top` whose `bin` field names `bin` (its own name first), as `name version`. */
async function binOwner(top: string, bin: string): Promise<string | null> {
  const names = [bin]
  for (const entry of await readdir(top).catch(() => [] as string[])) {
    if (entry.startsWith('.')) continue
    if (entry.startsWith('@')) for (const scoped of await readdir(path.join(top, entry)).catch(() => [] as string[])) names.push(`${entry}/${scoped}`)
    else if (entry !== bin) names.push(entry)
  }
  for (const name of names) {
    const manifest = await readManifest(path.join(top, name))
    if (manifest === null || typeof manifest.name !== 'string' || typeof manifest.version !== 'string') continue
    const bins = typeof manifest.bin === 'string' ? { [manifest.name.split('/').pop()!]: manifest.bin } : (manifest.bin ?? {})
    if (typeof bins === 'object' && bins !== null && bin in bins) return `${manifest.name} ${manifest.version}`
  }
  return null
}

/**
 * A task's prepared dependency folder (null when its metadata declares no
 * `dependencies`): the inputs read from its template (the parent commit's
 * files) and checked against the SHA-256s its metadata records.
 */
export async function taskDependencies(task: Task, options: Omit<PrepareOptions, 'expected' | 'where' | 'sandboxed'>): Promise<PreparedDependencies | null> {
  if (task.kind !== 'git-fix' || task.metadata.dependencies === undefined) return null
  const { dependencies } = task.metadata
  const template = await parentTemplate(task.repo, task.metadata.base)
  return prepareDependencies({ prepare: dependencies.prepare, inputs: Object.keys(dependencies.inputs), mount: dependencies.mount }, template, {
    ...options,
    expected: dependencies.inputs,
    where: task.id,
  })
}
