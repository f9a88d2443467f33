import { lstat, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * The harness's own Vitest configuration for every Vitest run of a task's
 * tests (harvest, validate, the oracle): a config file outside the copy that
 * loads the task's own Vitest config (the one Vitest would pick, or the
 * command's `--config`) and adds two things to it. A setup file, run after the
 * task's own setup files and before any test file imports the agent's code,
 * that locks chai's assertion methods, the matchers registered so far and the
 * `expect`/`vi`/`describe`/`it` globals, so `expect.extend({ toBe })`, a chai
 * plugin or `globalThis.expect = …` from the code under test throws instead of
 * disarming the tests (new matchers can still be added, as test files do);
 * every `test.projects` entry gets it too: inline, with or without
 * `extends: true`, or named by a path or glob (to its own config file or a
 * folder). And a private cache folder in the run's HOME, with the task's config loaded
 * through Vite's module runner, so nothing is written into the prepared
 * dependency folder (read-only in the sandbox) or the task's files: ESM
 * `vitest.config.*` repositories are measured.
 */

/** The config files Vitest looks for in the working directory, in its order. */
const CONFIG_NAMES = ['vitest.config', 'vite.config'].flatMap((name) => ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].map((ext) => `${name}${ext}`))

/** A `--config`/`-c` (and `--configLoader`) argument of a Vitest command, with its value. */
const CONFIG_ARGUMENT = /(?<=\s)(?:--config(?:Loader)?|-c)(?:=|\s+)('[^']*'|"[^"]*"|\S+)/g

/** The Vitest command a task runs: `vitest` (a path to it, or `vitest.mjs`), then `run` when given. */
const VITEST = /(\bvitest(?:\.mjs)?(?:\s+run)?)(?=\s|$)/

/** True when the command starts Vitest. */
export function runsVitest(command: string): boolean {
  return VITEST.test(command)
}

const unquote = (word: string) => (/^(['"]).*\1$/.test(word) ? word.slice(1, -1) : word)

/**
 * The task's own config file as Vitest would find it in `cwd`: the command's
 * `--config` (relative to `cwd`), else the first of `vitest.config.*`,
 * `vite.config.*` there; null when there is none.
 */
export async function taskVitestConfig(command: string, cwd: string): Promise<string | null> {
  for (const match of command.matchAll(CONFIG_ARGUMENT)) {
    if (!match[0].startsWith('--configLoader')) return unquote(match[1]!)
  }
  for (const name of CONFIG_NAMES) {
    if ((await lstat(path.join(cwd, name)).catch(() => null)) !== null) return name
  }
  return null
}

/** The command with its own `--config`/`--configLoader` replaced by the harness's config, loaded natively. */
export function withHarnessVitestConfig(command: string, harnessConfig: string): string {
  const quoted = /^[A-Za-z0-9_@%+=:,./-]+$/.test(harnessConfig) ? harnessConfig : `'${harnessConfig.replace(/'/g, `'\\''`)}'`
  return command.replace(CONFIG_ARGUMENT, '').replace(VITEST, `$1 --config=${quoted} --configLoader=native`)
}

/** The setup file: locks what a test's assertions are made of, after the task's own setup files ran. */
export const VITEST_SETUP_SOURCE = `import { chai, expect } from 'vitest'
const lock = (object, name) => {
  const descriptor = Object.getOwnPropertyDescriptor(object, name)
  if (descriptor === undefined || descriptor.configurable === false) return
  if ('value' in descriptor) descriptor.writable = false
  descriptor.configurable = false
  Object.defineProperty(object, name, descriptor)
}
const lockAll = (object) => { if (object !== null && (typeof object === 'object' || typeof object === 'function')) for (const name of Reflect.ownKeys(object)) lock(object, name) }
lockAll(chai.Assertion.prototype)
lockAll(chai.util)
lockAll(expect)
lockAll(globalThis[Symbol.for('$$jest-matchers-object')]?.matchers)
for (const name of ['expect', 'vi', 'vitest', 'chai', 'assert', 'describe', 'suite', 'it', 'test', 'bench', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach', 'onTestFailed', 'onTestFinished', 'expectTypeOf', 'assertType']) lock(globalThis, name)
`

/** The harness's config file's name: one Vitest accepts as a project's config (`vitest.*.config.*`), so a task's project entry naming its own root config is the root project, as Vitest makes it. */
const HARNESS_CONFIG = 'vitest.oracle.config.mjs'

/**
 * The harness's config: the task's config (through Vite's module runner) with
 * the setup file appended and a private cache, in the root and in every
 * project. A project named by a path or a glob (a config file, or a folder
 * with or without one) is resolved as Vitest resolves it and loaded the same
 * way, then given to Vitest inline with the setup file and the cache added;
 * its root, name and options stay as Vitest would have made them.
 */
function configSource(taskConfig: string | null): string {
  return `import { createRequire } from 'node:module'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
const here = fileURLToPath(import.meta.url)
const setup = path.join(path.dirname(here), 'oracle-vitest-setup.mjs')
const taskConfig = ${JSON.stringify(taskConfig)}
const CONFIG_FILES = ${JSON.stringify(CONFIG_NAMES)}
const CONFIG_NAME = /^vite(?:st)?(?:\\.[\\w-]+)?\\.config\\./
const fail = (message) => { throw new Error('task-outcome oracle: ' + message) }
function fromVitest(root) {
  return createRequire(createRequire(path.join(root, 'package.json')).resolve('vitest'))
}
async function loadVite(root) {
  const fromRoot = createRequire(path.join(root, 'package.json'))
  try { return await import(pathToFileURL(fromRoot.resolve('vite')).href) } catch {}
  return import(pathToFileURL(fromVitest(root).resolve('vite')).href)
}
// A folder's own config file as Vitest looks for it, else the folder itself (a project without a config file).
const inFolder = (folder) => {
  const names = new Set(readdirSync(folder))
  const name = CONFIG_FILES.find((file) => names.has(file))
  return name === undefined ? folder.replace(/\\/?$/, '/') : path.join(folder, name)
}
// Config files and folders (ending in '/') that a project entry names, as Vitest's own resolution finds them.
async function projectPaths(entries, root) {
  const globber = await import(pathToFileURL(fromVitest(root).resolve('tinyglobby')).href)
  const paths = []
  const patterns = []
  for (const entry of entries) {
    const option = entry.replace('<rootDir>', () => root)
    if (globber.isDynamicPattern(option)) { patterns.push(option); continue }
    const file = path.resolve(root, option)
    const stats = statSync(file, { throwIfNoEntry: false }) ?? fail('the Vitest projects definition references a non-existing file or folder: ' + file)
    if (stats.isDirectory()) paths.push(inFolder(file))
    else if (CONFIG_NAME.test(path.basename(file))) paths.push(file)
    else fail('the Vitest project file ' + path.relative(root, file) + ' must be named vitest.config.*, vite.config.* or (vitest|vite).*.config.*')
  }
  const ignore = ['**/node_modules/**', '**/*.timestamp-*', '**/.DS_Store']
  const matched = patterns.length === 0 ? [] : await globber.glob(patterns, { absolute: true, dot: true, onlyFiles: false, cwd: root, expandDirectories: false, ignore })
  for (const match of matched) {
    if (match.endsWith('/')) paths.push(inFolder(match))
    else if (CONFIG_NAME.test(path.basename(match))) paths.push(match)
    else fail('the Vitest projects glob matched ' + path.relative(root, match) + ', which is no vitest.config.*, vite.config.* or (vitest|vite).*.config.* file')
  }
  return [...new Set(paths)]
}
// The name Vitest gives a project from a file or folder: its package.json's name, else the folder's.
function defaultName(projectPath) {
  const folder = projectPath.endsWith('/') ? projectPath.slice(0, -1) : path.dirname(projectPath)
  try {
    const name = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).name
    if (typeof name === 'string' && name !== '') return name
  } catch {}
  return path.basename(folder)
}
export default async (env) => {
  const root = process.cwd()
  const vite = await loadVite(root)
  // The module runner writes nothing; a CommonJS config (module.exports) it cannot run is bundled, which for CommonJS writes nothing either.
  const loadFile = (file, from) => {
    const load = (loader) => vite.loadConfigFromFile(env, file, from, undefined, undefined, loader)
    return load('runner').catch(() => load('bundle'))
  }
  const taskFile = taskConfig === null ? null : path.resolve(root, taskConfig)
  const loaded = taskFile === null ? null : await loadFile(taskFile, root)
  if (taskFile !== null && loaded === null) fail('the Vitest config ' + taskConfig + ' could not be loaded')
  const harness = { cacheDir: path.join(process.env.HOME, '.task-outcome-vite'), test: { setupFiles: [setup] } }
  const config = vite.mergeConfig(loaded?.config ?? {}, { root, ...harness })
  // An inline project without extends: true inherits neither: each gets them itself (awaited or called as Vitest would).
  const own = (project) => (project !== null && typeof project === 'object' && project.extends !== true ? vite.mergeConfig(project, harness) : project)
  const withHarness = (project) => (typeof project === 'function' ? async (...args) => own(await project(...args)) : Promise.resolve(project).then(own))
  // A project from a config file or a folder, inline: Vitest would load it as it stands, without the harness's additions.
  const fromPath = async (projectPath) => {
    // The task's own root config named as a project is the root project, which has them already: name this config, as Vitest does then.
    if (projectPath === taskFile) return here
    const folder = projectPath.endsWith('/') ? projectPath.slice(0, -1) : path.dirname(projectPath)
    const file = projectPath.endsWith('/') ? {} : ((await loadFile(projectPath, folder)) ?? fail('the Vitest project config ' + path.relative(root, projectPath) + ' could not be loaded')).config
    if (file.test?.projects !== undefined) fail('the Vitest project config ' + path.relative(root, projectPath) + ' declares projects of its own; list them in the root config instead')
    const projectRoot = file.root === undefined ? folder : path.resolve(folder, file.root)
    return vite.mergeConfig({ ...file, root: projectRoot, test: { ...file.test, name: file.test?.name ?? defaultName(projectPath) } }, harness)
  }
  const projects = config.test?.projects
  if (Array.isArray(projects)) {
    const named = projects.filter((project) => typeof project === 'string')
    const inline = projects.filter((project) => typeof project !== 'string').map(withHarness)
    config.test.projects = [...inline, ...(named.length === 0 ? [] : await Promise.all((await projectPaths(named, root)).map(fromPath)))]
  }
  return config
}
`
}

/**
 * Writes the harness's config and setup file into `dir` (a folder of the
 * harness's own, outside the copy, read-only in the sandbox) for a command run
 * in `cwd`, and returns the command that uses them.
 */
export async function prepareVitestHarness(dir: string, command: string, cwd: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const config = path.join(dir, HARNESS_CONFIG)
  await writeFile(path.join(dir, 'oracle-vitest-setup.mjs'), VITEST_SETUP_SOURCE, { mode: 0o444 })
  await writeFile(config, configSource(await taskVitestConfig(command, cwd)), { mode: 0o444 })
  return withHarnessVitestConfig(command, config)
}
