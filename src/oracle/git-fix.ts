import { cp, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { HarnessFailure } from '../errors.ts'
import { DEFAULT_TEST_GLOBS, runnerTestFiles, testPathPredicate } from '../tasks/test-paths.ts'
import type { GitFixTask } from '../tasks/task.ts'
import { taskDependencies, type PreparedDependencies } from '../workspace/dependencies.ts'
import { copyEntry, directoryInside, lstatInside, type CopiedKind } from '../workspace/inside.ts'
import type { Workspace } from '../workspace/workspace.ts'
import { evaluateListed, type ListedOutcome } from './junit/outcome.ts'
import { runTestCommand, type TestCommandRun } from './test-command.ts'
import { oracleCopy, type OracleCopy } from './copy.ts'
import { checkCanaries, ORACLE_DISARMED } from './canaries/check.ts'
import { canaryFramework, type CanaryFramework } from './canaries/framework.ts'
import { layDecoys, withFixPaths, type Decoy } from './canaries/decoys.ts'
import { layCanaries, takenNames, type Canary } from './canaries/lay.ts'
import { writeNodePreload } from './preload.ts'
import { pytestGuardFindings, withPytestGuard, writePytestGuard } from './pytest-guard.ts'
import { hasTestFields, restoreTestFields } from './test-fields.ts'
import { compareChannels, readSecondChannel, withSecondChannel } from './second-channel.ts'
import type { OracleOptions, OracleJudgement } from './judgement.ts'

/** The git-fix oracle's judgement: its `oracle` is always the tests' counts and failing ids. */
export interface FixTestsJudgement extends OracleJudgement {
  readonly oracle: ListedOutcome
}

/**
 * Lays the fix's test files (from the task's `oracle/`) over the copy. A link
 * or file the agent left where a test's folder belongs is replaced by a real
 * folder: the fix's tests are never written through the agent's links.
 */
async function placeOracleTests(task: GitFixTask, copy: string): Promise<void> {
  for (const file of task.metadata.test_files) {
    const parent = path.posix.dirname(file)
    await directoryInside(copy, parent === '.' ? '' : parent, true)
    const target = path.join(copy, file)
    await rm(target, { recursive: true, force: true })
    await cp(path.join(task.oracleDir, file), target)
  }
}

/** The oracle's copy, and the agent's changes it did not carry (FIFOs, sockets, devices). */
interface PreparedCopy extends OracleCopy {
  readonly special: readonly string[]
}

/**
 * A clean tree of the parent with the fix's tests (an overlay when the oracle
 * is sandboxed, a copy on disk without), and optionally the agent's non-test
 * changes: each copied from the workspace without following a link on either
 * side (`workspace/inside.ts`); a FIFO, socket or device is not carried.
 */
async function prepareCopy(
  task: GitFixTask,
  options: OracleOptions,
  label: string,
  agent?: { dir: string; files: readonly string[] },
  mounted?: OracleCopy,
): Promise<PreparedCopy> {
  const copy = mounted ?? (await cleanCopy(task, options, label))
  try {
    const special: string[] = []
    for (const file of agent?.files ?? []) {
      const kind: CopiedKind = await copyEntry(agent!.dir, copy.dir, file)
      if (kind === 'special') special.push(file)
    }
    await placeOracleTests(task, copy.dir)
    return { ...copy, special }
  } catch (error) {
    if (mounted === undefined) await copy.dispose()
    throw error
  }
}

/** The clean tree of the task's parent: an overlay for a sandboxed oracle, a copy on disk without. */
function cleanCopy(task: GitFixTask, options: OracleOptions, label: string): Promise<OracleCopy> {
  return oracleCopy(task.repo, task.metadata.base, options.scratchDir, label, options.sandbox === undefined ? 'copy' : 'overlay', options.sandbox?.diskMb, options.watchedTemplate)
}

/**
 * The git-fix oracle's clean tree mounted ahead of `runFixTests`
 * (`OracleOptions.mountedCopy`), for a sandboxed oracle only: its overlay
 * holds nothing but the template until the oracle lays the agent's changes
 * and the fix's tests in it. Without a sandbox the copy is a folder on the
 * host that the agent's code could reach, so the oracle makes it itself, at
 * the moment it needs it (undefined). The caller disposes what it mounted.
 */
export function mountFixCopy(task: GitFixTask, options: OracleOptions): Promise<OracleCopy> | undefined {
  return options.sandbox === undefined ? undefined : cleanCopy(task, options, 'oracle')
}

function runnerFiles(task: GitFixTask): string[] {
  return runnerTestFiles(task.metadata.test_files, task.metadata.test_globs ?? DEFAULT_TEST_GLOBS)
}

/** The clean parent's test fields back in the agent's package.json / pyproject.toml files in the copy. */
async function restoreTestFieldsOf(prepared: PreparedCopy, taken: readonly string[], notes: string[]): Promise<void> {
  const files = taken.filter((file) => hasTestFields(file))
  if (files.length === 0) return
  const { dir: copy, template } = prepared
  for (const file of files) {
    if ((await lstatInside(copy, file))?.isFile() !== true) {
      // A link (or anything but a file) where the agent's package.json / pyproject.toml was: the parent's, never written through.
      await copyEntry(template, copy, file)
      notes.push(`ignored the agent's ${file} (not a regular file): the parent's instead`)
      continue
    }
    const base = await readFile(path.join(template, file), 'utf8').catch(() => null)
    const restored = await restoreTestFields(copy, file, base)
    if (restored.length > 0) notes.push(`ignored the agent's change to the test side of ${file}: ${restored.join(', ')}`)
  }
}

const CANNOT_WRITE = String.raw`(Cannot (?:assign to read only property|redefine property|add property|define property)[^\n]{0,120})`

/**
 * V8's words for a write to a frozen object: with the preload or the Vitest harness's setup, code that tried to change
 * node:assert, node:test, chai or expect (on one line, as TAP's `name:` and `message:` lines, or as node's TAP block
 * for a file that failed to load, `error: |-` with the message and `name: 'TypeError'` after it).
 */
const FROZEN_WRITE = new RegExp(String.raw`TypeError[^\n]*?(?:\n\s*message: "?)?${CANNOT_WRITE}|error: \|-\n\s*${CANNOT_WRITE}(?:\n[^\n]*){0,20}?\n\s*name: '?TypeError`)

/** A write to the preload's frozen assertion exports, as the runner's output shows it (one line, or none). */
function frozenWrites(run: TestCommandRun): string[] {
  const match = FROZEN_WRITE.exec(`${run.stdout}\n${run.stderr}`)
  return match === null ? [] : [`code in the test process tried to change a frozen assertion export (${(match[1] ?? match[2])!.trim()})`]
}

function frameworkOf(task: GitFixTask): CanaryFramework | null {
  return canaryFramework(task.metadata.test_command, runnerFiles(task))
}

/** What the oracle laid in its copy besides the fix's tests: canaries, decoys, and the test files the runner is given now. */
interface Laid {
  readonly canaries: Canary[]
  readonly decoys: Decoy[]
  readonly files: string[]
}

/**
 * Decoys at the paths of the fix's test files that hold plain assertions (the
 * real files moved beside them), then canaries appended to the real test
 * files; nothing when the framework is not one the oracle knows.
 */
async function layOracleChecks(task: GitFixTask, copy: string, notes: string[]): Promise<Laid> {
  const files = runnerFiles(task)
  const framework = frameworkOf(task)
  if (framework === null) {
    notes.push('no canaries: the test command runs none of node --test, Vitest or pytest')
    return { canaries: [], decoys: [], files }
  }
  const realIds = [...task.metadata.FAIL_TO_PASS, ...task.metadata.PASS_TO_PASS]
  const taken = takenNames(realIds)
  const decoys = await layDecoys(copy, framework, files, realIds, taken)
  const real = files.map((file) => decoys.find((decoy) => decoy.file === file)?.movedTo ?? file)
  const canaries = await layCanaries(copy, framework, real, realIds, taken, task.metadata.FAIL_TO_PASS)
  notes.push(
    `laid ${canaries.length} ${framework} canaries in ${real.length} test file(s)` +
      (decoys.length === 0 ? '' : ` and ${decoys.reduce((sum, decoy) => sum + decoy.canaries.length, 0)} decoy test(s) in ${decoys.length}`),
  )
  const given = [...real, ...decoys.filter((decoy) => !decoy.imported).map((decoy) => decoy.file)]
  return { canaries: [...canaries, ...decoys.flatMap((decoy) => decoy.canaries)], decoys, files: given }
}

function runTests(
  task: GitFixTask,
  copy: OracleCopy,
  options: OracleOptions,
  label: string,
  dependencies: PreparedDependencies | null,
  checks: { framework: CanaryFramework; files: readonly string[]; preload: string; pytestGuard: { dir: string; moduleName: string } } | null = null,
): Promise<TestCommandRun> {
  const command = checks === null ? task.metadata.test_command : withSecondChannel(checks.framework, task.metadata.test_command)
  return runTestCommand({
    ...(checks === null ? {} : checks.framework === 'pytest' ? { pythonPath: checks.pytestGuard.dir } : { preload: checks.preload }),
    dependencies,
    command: checks?.framework === 'pytest' ? withPytestGuard(command, checks.pytestGuard.moduleName) : command,
    cwd: copy.cwd,
    ...(copy.overlay === undefined ? {} : { overlay: copy.overlay }),
    testFiles: checks?.files ?? runnerFiles(task),
    junitFile: path.join(options.scratchDir, `${label}-junit.xml`),
    timeoutMs: options.timeoutMs,
    home: path.join(options.scratchDir, `${label}-home`),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    ...(options.toolchain === undefined ? {} : { pathVariable: options.toolchain.path }),
  })
}

/**
 * The fix's tests as they are, on a fresh oracle copy of the parent (with the
 * agent's `agent.files` carried when given), the copy disposed after: no
 * decoys, no canaries, no second channel, no preload, so nothing here can tell
 * a disarmed report from a true one and it never decides solved. What the
 * oracle's probe runs on the clean parent (`runFixTests`), and the baseline of
 * the oracle's benchmark (`bench/perf/oracle-canaries.bench.ts`).
 */
export async function runPlainFixTests(
  task: GitFixTask,
  options: OracleOptions,
  label: string,
  dependencies: PreparedDependencies | null,
  agent?: { dir: string; files: readonly string[] },
): Promise<TestCommandRun> {
  const copy = await prepareCopy(task, options, label, agent)
  try {
    return await runTests(task, copy, options, label, dependencies)
  } finally {
    await copy.dispose()
  }
}

function allFailing(task: GitFixTask): ListedOutcome {
  const { FAIL_TO_PASS, PASS_TO_PASS } = task.metadata
  return {
    failToPass: { passed: 0, total: FAIL_TO_PASS.length },
    passToPass: { passed: 0, total: PASS_TO_PASS.length },
    failing: [...FAIL_TO_PASS, ...PASS_TO_PASS],
  }
}

function describeRun(run: TestCommandRun): string {
  const ended = run.timedOut ? 'timed out' : `exited ${run.exitCode ?? 'on a signal'}`
  return `$ ${run.commandLine}\n${ended} after ${(run.durationMs / 1000).toFixed(1)} s`
}

/**
 * A git-fix task's oracle. After the agent stops, a clean copy of the parent
 * gets the agent's changes to non-test files and then the fix's test files;
 * the task's test command runs there. Solved when every FAIL_TO_PASS and
 * PASS_TO_PASS test passes; a listed test missing from the report failed.
 * Changes to tests, conftest files, test folders or runner configuration
 * never reach the copy, so an agent that rewrites a test changes nothing.
 *
 * A run that produced no results is a harness failure, unless the agent's own
 * changes caused it: then the same command runs on the clean parent with the
 * fix's tests, and if that run does report, the agent's changes stopped the
 * tests from reporting at all (a module that kills the interpreter on import,
 * a conftest that no longer imports) and the run is unsolved, every listed
 * test failing. A run past the oracle timeout is unsolved too.
 */
export async function runFixTests(task: GitFixTask, workspace: Workspace, options: OracleOptions): Promise<FixTestsJudgement> {
  const started = performance.now()
  const isTestPath = testPathPredicate({ testGlobs: task.metadata.test_globs ?? DEFAULT_TEST_GLOBS, testFiles: task.metadata.test_files })
  // The oracle's own copy of the task's prepared dependency folder (read-only in its sandbox), never the workspace's;
  // the preload and the pytest guard (outside the copy) are written meanwhile.
  const [dependencies, preload, pytestGuard] = await Promise.all([
    taskDependencies(task, options.toolchain === undefined ? {} : { pathVariable: options.toolchain.path }),
    writeNodePreload(path.join(options.scratchDir, 'oracle-preload')),
    writePytestGuard(path.join(options.scratchDir, 'oracle-pytest-guard')),
  ])
  const mount = dependencies?.mount
  const isDependency = (file: string) => mount !== undefined && (file === mount || file.startsWith(`${mount}/`))
  const changed = options.changedFiles ?? (await workspace.changedFiles())
  const taken = changed.filter((file) => !isTestPath(file) && !isDependency(file))
  const ignored = changed.filter((file) => !taken.includes(file))
  const notes = [
    `took ${taken.length} changed non-test file(s) from the agent${taken.length > 0 ? `: ${taken.join(', ')}` : ''}`,
    `ignored ${ignored.length} change(s) to tests or test infrastructure${ignored.length > 0 ? `: ${ignored.join(', ')}` : ''}`,
  ]
  const copies: OracleCopy[] = []
  try {
    const mounted = await options.mountedCopy
    const prepared = await prepareCopy(task, options, 'oracle', { dir: workspace.dir, files: taken }, mounted)
    if (mounted === undefined) copies.push(prepared)
    const copy = prepared.dir
    if (prepared.special.length > 0) notes.push(`not carried (a FIFO, socket or device): ${prepared.special.join(', ')}`)
    await restoreTestFieldsOf(prepared, taken, notes)
    const laid = await layOracleChecks(task, copy, notes)
    const framework = frameworkOf(task)
    const laidAt = performance.now()
    const run = await runTests(task, prepared, options, 'oracle', dependencies, framework === null ? null : { framework, files: laid.files, preload, pytestGuard })
    // Preparation: everything before the test command started (what runTestCommand did first included: the mount
    // point, the hand-over); reading its report and the checks after it are judging.
    options.onStage?.('oracle preparation', laidAt - started + run.preparedMs)
    options.onStage?.('test command', run.durationMs)
    if (options.signal?.aborted) throw new HarnessFailure('oracle', `${task.id}: the oracle was cancelled`, { retryable: false })
    notes.push(describeRun(run))
    let outcome: ListedOutcome
    const disarmed: string[] = []
    if (run.results !== null) {
      const results = { format: run.results.format, tests: withFixPaths(run.results.tests, laid.decoys) }
      outcome = evaluateListed(results, task.metadata.FAIL_TO_PASS, task.metadata.PASS_TO_PASS)
      disarmed.push(...checkCanaries(results, laid.canaries, outcome.failToPass.passed + outcome.passToPass.passed > 0))
      if (framework !== null) disarmed.push(...(framework === 'pytest' ? pytestGuardFindings(run.stderr) : frozenWrites(run)))
      if (framework !== null) {
        const channel = withFixPaths(readSecondChannel(framework, run, prepared.cwd), laid.decoys)
        disarmed.push(...compareChannels(results, channel, [...task.metadata.FAIL_TO_PASS, ...task.metadata.PASS_TO_PASS], run.exitCode))
      }
    } else if (run.timedOut) {
      notes.push(`${run.noResults}: counted as unsolved (every listed test failed)`)
      outcome = allFailing(task)
    } else {
      const probe = await runPlainFixTests(task, options, 'probe', dependencies)
      if (probe.results === null) {
        throw new HarnessFailure(
          'oracle',
          `${task.id}: the test command produced no results (${run.noResults}), not even on the clean parent (${probe.noResults}); ` +
            `check the task's test_command.\n$ ${run.commandLine}\n${run.stderr.slice(-1500)}`,
        )
      }
      notes.push(`${run.noResults}; on the clean parent it reports, so the agent's changes stopped the tests from reporting: counted as unsolved`)
      outcome = allFailing(task)
    }
    // Read before the copy goes: the tests (code the agent wrote among them) filled the copy's tmpfs, HOME included.
    const limit = prepared.overlay?.diskFull() === true ? 'disk' : undefined
    if (limit !== undefined) notes.push(`the tests wrote the oracle's disk limit full (the copy and HOME): counted as unsolved at limit 'disk'`)
    const solved = limit === undefined && disarmed.length === 0 && outcome.failing.length === 0 && outcome.failToPass.total > 0
    notes.push(
      `FAIL_TO_PASS ${outcome.failToPass.passed}/${outcome.failToPass.total}, PASS_TO_PASS ${outcome.passToPass.passed}/${outcome.passToPass.total}: ${solved ? 'solved' : 'unsolved'}`,
      ...outcome.failing.map((id) => `  not passing: ${id}`),
      ...disarmed.map((problem) => `${ORACLE_DISARMED}: ${problem}; the report cannot be believed, so the run is unsolved`),
    )
    const header = notes.map((line) => `[task-outcome oracle] ${line}`).join('\n')
    return {
      solved,
      oracle: { failToPass: outcome.failToPass, passToPass: outcome.passToPass, failing: outcome.failing },
      stdout: run.stdout,
      stderr: `${header}\n${run.stderr}`,
      integrityFlags: disarmed.length === 0 ? [] : [`${ORACLE_DISARMED}: ${disarmed[0]}${disarmed.length > 1 ? ` (and ${disarmed.length - 1} more)` : ''}`],
      ...(limit === undefined ? {} : { limit }),
    }
  } finally {
    for (const copy of copies) await copy.dispose()
  }
}
