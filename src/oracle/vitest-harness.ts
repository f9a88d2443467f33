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
 * every inline `test.projects` entry gets it too, with or without
 * `extends: true` (a project named by a path or glob to its own config file
 * does not: see docs/integrity.md). And a private cache folder in the run's HOME, with the task's config loaded
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

/** The harness's config: the task's config (through Vite's module runner) with the setup file appended and a private cache. */
function configSource(taskConfig: string | null): string {
  return `import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
const setup = fileURLToPath(new URL('./oracle-vitest-setup.mjs', import.meta.url))
const taskConfig = ${JSON.stringify(taskConfig)}
async function loadVite(root) {
  const fromRoot = createRequire(path.join(root, 'package.json'))
  try { return await import(pathToFileURL(fromRoot.resolve('vite')).href) } catch {}
  return import(pathToFileURL(createRequire(fromRoot.resolve('vitest')).resolve('vite')).href)
}
export default async (env) => {
  const root = process.cwd()
  const vite = await loadVite(root)
  // The module runner writes nothing; a CommonJS config (module.exports) it cannot run is bundled, which for CommonJS writes nothing either.
  const load = (loader) => vite.loadConfigFromFile(env, path.resolve(root, taskConfig), root, undefined, undefined, loader)
  const loaded = taskConfig === null ? null : await load('runner').catch(() => load('bundle'))
  if (taskConfig !== null && loaded === null) throw new Error('task-outcome oracle: the Vitest config ' + taskConfig + ' could not be loaded')
  const harness = { cacheDir: path.join(process.env.HOME, '.task-outcome-vite'), test: { setupFiles: [setup] } }
  const config = vite.mergeConfig(loaded?.config ?? {}, { root, ...harness })
  // An inline project without extends: true inherits neither: each gets them itself (awaited or called as Vitest would).
  const own = (project) => (project !== null && typeof project === 'object' && project.extends !== true ? vite.mergeConfig(project, harness) : project)
  const withHarness = (project) => (typeof project === 'string' ? project : typeof project === 'function' ? async (...args) => own(await project(...args)) : Promise.resolve(project).then(own))
  if (Array.isArray(config.test?.projects)) config.test.projects = config.test.projects.map(withHarness)
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
  const config = path.join(dir, 'oracle-vitest.config.mjs')
  await writeFile(path.join(dir, 'oracle-vitest-setup.mjs'), VITEST_SETUP_SOURCE, { mode: 0o444 })
  await writeFile(config, configSource(await taskVitestConfig(command, cwd)), { mode: 0o444 })
  return withHarnessVitestConfig(command, config)
}
