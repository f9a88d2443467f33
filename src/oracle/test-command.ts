import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { SpecError } from '../errors.ts'
import { handOverWrites, isolatedSandbox, runProcess, UNSANDBOXED_HOST, type MountedOverlay } from '../sandbox/index.ts'
import { dependencyMount, placeDependencies, type PreparedDependencies } from '../workspace/dependencies.ts'
import { parseJUnit } from './junit/parse.ts'
import { prepareVitestHarness, runsVitest } from './vitest-harness.ts'
import type { JUnitResults } from './junit/results.ts'

/**
 * Running a task's test command: the one place that fills in `{tests}` and
 * `{junit}`, starts the command in its own process group with a clean
 * environment, and reads the JUnit report it wrote. Harvest and the git-fix
 * oracle both run tests through here, so their ids always compare.
 */

/** The placeholder replaced by the test files (shell-quoted, space-separated). */
export const TESTS_PLACEHOLDER = '{tests}'
/** The placeholder replaced by the path of the JUnit report the command must write. */
export const JUNIT_PLACEHOLDER = '{junit}'

/** Quotes one word for bash when it holds anything beyond a safe set of characters. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/** Checks a test command template; a command without `{junit}` can never produce results. */
export function checkTestCommand(template: string, where: string): void {
  if (!template.includes(JUNIT_PLACEHOLDER)) {
    throw new SpecError(`${where}: the test command must contain ${JUNIT_PLACEHOLDER} where the JUnit XML report goes (e.g. --junitxml=${JUNIT_PLACEHOLDER}): "${template}"`)
  }
}

/** The command line with `{tests}` and `{junit}` filled in. */
export function fillTestCommand(template: string, testFiles: readonly string[], junitFile: string): string {
  return template.split(TESTS_PLACEHOLDER).join(testFiles.map(shellQuote).join(' ')).split(JUNIT_PLACEHOLDER).join(shellQuote(junitFile))
}

/**
 * The test command's environment: an allowlist, so nothing of the harness's
 * own process (Vitest's worker variables, NODE_OPTIONS, credentials) leaks
 * into the project's tests. pyenv's shims need PYENV_ROOT, which the fresh
 * HOME would otherwise hide.
 */
export function testCommandEnv(home: string, host: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  const env: Record<string, string> = {
    PATH: host.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: host.LANG ?? 'C.UTF-8',
    TZ: 'UTC',
    CI: '1',
    NO_COLOR: '1',
    PYTHONDONTWRITEBYTECODE: '1',
  }
  for (const name of ['LC_ALL', 'PYENV_ROOT', 'PYENV_VERSION', 'TMPDIR']) {
    const value = host[name]
    if (value !== undefined) env[name] = value
  }
  if (env.PYENV_ROOT === undefined && host.HOME !== undefined) env.PYENV_ROOT = path.join(host.HOME, '.pyenv')
  return env
}

/** One run of a test command. */
export interface TestCommandOptions {
  /** The test command template, with `{tests}` and `{junit}`. */
  readonly command: string
  /** Where the tests run, as the test command sees it: a repository copy, or the mount point of `overlay`. */
  readonly cwd: string
  /**
   * The repository as an overlay (sandboxed only): the command enters its
   * holder's namespace and runs at its mount point `cwd`; the harness reaches
   * the tree at `overlay.hostPath`, and hands what it wrote there to the
   * sandbox identity first.
   */
  readonly overlay?: MountedOverlay
  /** Repository paths given as `{tests}`. */
  readonly testFiles: readonly string[]
  /** Where the JUnit report goes (outside `cwd`); removed first. */
  readonly junitFile: string
  readonly timeoutMs: number
  /** HOME for the command (a scratch folder); sandboxed in an overlay with a disk limit, its HOME on that tmpfs is bound here. */
  readonly home: string
  readonly signal?: AbortSignal
  /** Run inside a sandbox without network that sees `cwd`, the report (bound as a file), `home` and these read-only folders. */
  readonly sandbox?: { readonly readOnly: readonly string[] }
  /** The PATH the command gets (the oracle's resolved toolchain); default: the host's. */
  readonly pathVariable?: string
  /** A CommonJS module every Node process of the command loads first (`--require` through NODE_OPTIONS); its folder is bound read-only. */
  readonly preload?: string
  /** A folder of the harness's own put first on PYTHONPATH (the oracle's pytest plugin, `pytest-guard.ts`), bound read-only. */
  readonly pythonPath?: string
  /** The task's prepared dependency folder: bound read-only at `<cwd>/<mount>` in the sandbox (a link to it without one). */
  readonly dependencies?: PreparedDependencies | null
}

/** What one run of a test command produced. */
export interface TestCommandRun {
  /** The parsed report, or null when the run produced no results. */
  readonly results: JUnitResults | null
  /** Why there are no results (null when there are). */
  readonly noResults: string | null
  readonly commandLine: string
  readonly exitCode: number | null
  readonly timedOut: boolean
  readonly stdout: string
  readonly stderr: string
  readonly durationMs: number
  /** What this call did before the command started (the report's file, HOME, the Vitest harness, the hand-over): the oracle's preparation. */
  readonly preparedMs: number
}

/**
 * Runs the test command once and reads its JUnit report. The command runs in
 * its own process group through the one runner, and its whole tree is killed
 * at the timeout (test runners start workers that would otherwise outlive it)
 * and when it ends (nothing it left in the background survives). A missing, empty, malformed or
 * test-less report is "no results", with the reason; the caller decides
 * whether that is a harness failure.
 */
export async function runTestCommand(options: TestCommandOptions): Promise<TestCommandRun> {
  const called = performance.now()
  await rm(options.junitFile, { force: true })
  await mkdir(path.dirname(options.junitFile), { recursive: true })
  // In a sandbox the report is bound as a file of its own: the runner writes into it, but nothing in the test
  // process can rename another file over it or unlink it (a mount point), and its folder is not visible.
  await writeFile(options.junitFile, '')
  await mkdir(options.home, { recursive: true })
  // A Vitest command runs with the harness's config around the task's own (vitest-harness.ts), from a folder read-only in the sandbox.
  const overlay = options.overlay
  if (overlay !== undefined && options.sandbox === undefined) throw new Error('runTestCommand: an overlay is entered only by a sandboxed test command')
  // The harness's path to the tree; `cwd` is the command's.
  const hostDir = overlay?.hostPath ?? options.cwd
  const vitestHarness = runsVitest(options.command) ? `${options.home}-vitest` : null
  const command = vitestHarness === null ? options.command : await prepareVitestHarness(vitestHarness, options.command, hostDir)
  const commandLine = fillTestCommand(command, options.testFiles, options.junitFile)
  const dependencies = options.dependencies ?? null
  if (dependencies !== null) await placeDependencies(dependencies, hostDir, options.sandbox === undefined ? 'link' : 'mount-point')
  if (overlay !== undefined) await handOverWrites(overlay)
  const started = performance.now()
  const env = {
    ...testCommandEnv(options.home),
    ...(options.pathVariable === undefined ? {} : { PATH: options.pathVariable }),
    ...(options.preload === undefined ? {} : { NODE_OPTIONS: `--require="${options.preload}"` }),
    ...(options.pythonPath === undefined ? {} : { PYTHONPATH: options.pythonPath }),
  }
  // HOME on the copy's tmpfs where it has one (the disk limit), bound at `home`; otherwise the folder itself.
  const limitedHome = overlay?.home
  // The report there too, bound at `junitFile`: the test process can write into it, never past the limit.
  const limitedReport = limitedHome === undefined ? undefined : besideHome(limitedHome, 'junit.xml')
  // Like HOME's folder, it exists on the host too (hidden under the tmpfs), where the sandbox's binds check it.
  if (limitedReport !== undefined) await Promise.all([writeFile(limitedReport.inside, ''), writeFile(limitedReport.onHost, '')])
  const sandbox =
    options.sandbox === undefined
      ? UNSANDBOXED_HOST
      : isolatedSandbox({
          writable: [...(overlay === undefined ? [options.cwd] : []), ...(limitedHome === undefined ? [options.junitFile, options.home] : [])],
          ...(limitedHome === undefined || limitedReport === undefined
            ? {}
            : {
                writableMounts: [
                  { source: limitedHome.inside, target: options.home, onHost: limitedHome.onHost },
                  { source: limitedReport.inside, target: options.junitFile, onHost: limitedReport.onHost },
                ],
              }),
          readOnly: [
            ...options.sandbox.readOnly,
            ...(options.preload === undefined ? [] : [path.dirname(options.preload)]),
            ...(vitestHarness === null ? [] : [vitestHarness]),
            ...(options.pythonPath === undefined ? [] : [options.pythonPath]),
          ],
          ...(overlay === undefined ? {} : { overlay: { pid: overlay.pid, target: overlay.layers.target } }),
          ...(dependencies === null ? {} : { mounts: [dependencyMount(dependencies, options.cwd)] }),
        })
  const result = await runProcess(
    { file: options.sandbox === undefined ? 'bash' : '/bin/bash', args: ['-c', commandLine] },
    {
      cwd: options.cwd,
      env: options.sandbox === undefined ? env : { ...env, TMPDIR: '/tmp' },
      timeoutMs: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      sandbox,
    },
  )
  const timedOut = result.timedOut
  const durationMs = performance.now() - started
  const base = {
    commandLine,
    exitCode: result.exitCode ?? null,
    timedOut,
    stdout: result.stdout,
    stderr: result.stderr,
    durationMs,
    preparedMs: started - called,
  }
  const ended = timedOut ? `timed out after ${options.timeoutMs} ms` : `exited ${result.exitCode ?? `on signal ${result.signal}`}`
  const xml = await readFile(limitedReport?.onHost ?? options.junitFile, 'utf8').catch(() => '')
  if (xml.trim() === '') return { ...base, results: null, noResults: `the test command ${ended} without writing a JUnit report` }
  try {
    const results = parseJUnit(xml, { cwd: options.cwd, testFiles: options.testFiles })
    if (results.tests.size === 0) {
      return { ...base, results: null, noResults: `the test command ${ended} and its JUnit report lists no test case` }
    }
    return { ...base, results, noResults: null }
  } catch (error) {
    return { ...base, results: null, noResults: `the test command ${ended} and its JUnit report cannot be read: ${(error as Error).message}` }
  }
}

/** A file beside HOME on the copy's tmpfs, as the sandbox's binds name it (`inside`) and as the harness reaches it. */
function besideHome(home: { readonly inside: string; readonly onHost: string }, name: string): { readonly inside: string; readonly onHost: string } {
  return { inside: path.join(path.dirname(home.inside), name), onHost: path.join(path.dirname(home.onHost), name) }
}
