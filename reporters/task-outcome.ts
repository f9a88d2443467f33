import type { Reporter, TestCase, TestModule, TestProject, TestSpecification, Vitest } from 'vitest/node'
import { TaskOutcomeError } from '../src/errors.ts'
import type { PlannedRun } from '../src/runs/plan.ts'
import { prepareExperiment } from '../src/runs/prepare.ts'
import { Recorder, readRecorded } from '../src/runs/recorder.ts'
import type { ShardId } from '../src/runs/shards.ts'
import { runSummary } from '../src/runs/summary.ts'
import { runLabel } from '../src/shared/run-label.ts'
import { REPORTER_BRAND } from '../src/vitest/attach.ts'
import { PROVIDE_KEY, runOf, type ExperimentProvide } from '../src/vitest/meta.ts'
import { recorderStart } from '../src/vitest/start.ts'
import { endOfExperiment, interruptedLine } from './conclusion.ts'
import { annotation, annotationPath, appendStepSummary, inGithubActions, stepSummary } from './github.ts'
import { countUnmeasured, foldShardFiles, newLedger, unrecordedLine, type ExperimentLedger } from './ledger.ts'
import { takeLook } from './looks.ts'
import { activeReporters, attachLiveLines, currentPlan, printsDocumentToStdout, progressLine } from './progress-line.ts'

const ACTIVE_REPORTER = Symbol.for('task-outcome.active-reporter')
const CASE_NAME = /^(.+) › (.+) › seed (\d+)$/
/** Off a terminal, a progress line every this many recorded runs (and after the last). */
const PLAIN_PROGRESS_EVERY = 5

/**
 * The task-outcome reporter: it maps Vitest's events to the recorder's calls
 * (`runs/recorder.ts` owns the files) and prints. The plugin adds it to every
 * Vitest invocation that runs an experiment, whatever reporters the command
 * line names; a user may also list it, and it is then active once, never
 * twice. Records arrive as test meta (`meta.run`); each is appended the moment
 * its case ends (to runs.jsonl, or to the shard's own file for `--shard`), so
 * Ctrl-C, SIGKILL or a crash loses nothing measured. `--merge-reports` and
 * every unsharded run fold the shard files into runs.jsonl. It prints a
 * progress line per experiment (live in a terminal), and at the end the
 * per-arm summary and the verdict; in GitHub Actions it annotates each run at
 * its task and writes the verdict to the job summary.
 */
export default class TaskOutcomeReporter implements Reporter {
  readonly [REPORTER_BRAND] = true
  readonly #ledgers = new Map<string, ExperimentLedger>()
  readonly #counted = new Set<string>()
  /** spec.json's plan per experiment, read once after the start's spec write: progress lines are drawn many times a second. */
  readonly #plans = new Map<string, readonly PlannedRun[]>()
  #vitest: Vitest | undefined
  #active = true
  #shard: ShardId | undefined
  #toStderr = false
  #live = false
  #github = false
  #vitestAnnotatesErrors = false
  #interrupted = false
  #ended = false

  onInit(vitest: Vitest): void {
    const holder = vitest as unknown as Record<symbol, unknown>
    if (holder[ACTIVE_REPORTER] !== undefined && holder[ACTIVE_REPORTER] !== this) {
      this.#active = false
      return
    }
    holder[ACTIVE_REPORTER] = this
    this.#vitest = vitest
    this.#shard = vitest.config.shard ?? undefined
    this.#toStderr = printsDocumentToStdout(vitest)
    this.#github = inGithubActions()
    for (const project of vitest.projects) this.#ledgerFor(project)
    process.once('SIGINT', () => (this.#interrupted = true))
    process.once('SIGTERM', () => (this.#interrupted = true))
    process.once('exit', () => this.#onExit())
  }

  /** Before the first run: the invocation's one start per experiment, shard files folded (unsharded runs and merges), spec.json kept, the live line set up. */
  async onTestRunStart(specifications: ReadonlyArray<TestSpecification>): Promise<void> {
    if (!this.#active) return
    this.#vitestAnnotatesErrors = activeReporters(this.#vitest).some((reporter) => (reporter as object).constructor?.name === 'GithubActionsReporter')
    const running = new Set(specifications.map((specification) => this.#ledgerFor(specification.project)))
    const merging = Boolean(this.#vitest?.config.mergeReports)
    for (const ledger of this.#ledgers.values()) {
      if (!running.has(ledger) && !merging) continue
      const recorder = await this.#recorderOf(ledger)
      if (this.#shard === undefined) {
        const { said, warned } = foldShardFiles(ledger, recorder)
        if (said !== undefined) this.#print(said)
        if (warned !== undefined) (this.#vitest?.logger ?? console).warn(warned)
      }
      if (running.has(ledger)) recorder.writeSpec()
      this.#plans.set(ledger.provide.name, currentPlan(recorder.prepared))
    }
    this.#live = attachLiveLines(this.#vitest, () =>
      this.#ended ? [] : [...this.#ledgers.values()].filter((ledger) => ledger.active && ledger.recorder !== undefined).map((ledger) => ` ${this.#progress(ledger)}`),
    )
  }

  onTestModuleCollected(testModule: TestModule): void {
    const ledger = this.#active ? this.#ledgerFor(testModule.project) : undefined
    if (ledger !== undefined) for (const testCase of testModule.children.allTests()) if (CASE_NAME.test(testCase.name)) ledger.toRun++
  }

  onTestCaseReady(testCase: TestCase): void {
    const ledger = this.#active ? this.#ledgerFor(testCase.project) : undefined
    if (ledger !== undefined) ledger.firstStartedAt ??= Date.now()
  }

  onTestCaseResult(testCase: TestCase): void {
    if (this.#active) this.#take(testCase, true)
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    if (!this.#active) return
    for (const testModule of testModules) for (const testCase of testModule.children.allTests()) this.#take(testCase, false)
    this.#ended = true
    let failed = false
    for (const ledger of this.#ledgers.values()) {
      if (!ledger.active) continue
      try {
        ;(await this.#recorderOf(ledger)).writeSpec()
        const end = await endOfExperiment(ledger, this.#shard)
        for (const line of end.lines) this.#print(line)
        if (this.#github && end.concluded !== undefined) appendStepSummary(stepSummary(ledger.provide.name, end.concluded.verdictText, end.concluded.arms))
      } catch (error) {
        // One experiment's failure never hides another's: each is concluded on its own.
        failed = true
        const what = error instanceof TaskOutcomeError ? error.message : `the analysis failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
        this.#print(`\ntask-outcome · ${ledger.provide.name}: no conclusion: ${what}`)
      }
    }
    if (failed) process.exitCode = 1
  }

  /** The ledger of the experiment a project runs, when it is an experiment project. */
  #ledgerFor(project: TestProject): ExperimentLedger | undefined {
    const provide = (project.config.provide as Record<string, unknown> | undefined)?.[PROVIDE_KEY] as ExperimentProvide | undefined
    if (provide === undefined) return undefined
    let ledger = this.#ledgers.get(provide.name)
    if (ledger === undefined) this.#ledgers.set(provide.name, (ledger = newLedger(provide)))
    return ledger
  }

  /** The experiment's recorder, from the invocation's one start (the plugin's, or begun here where the plugin did not, as in a merge). */
  async #recorderOf(ledger: ExperimentLedger): Promise<Recorder> {
    if (ledger.recorder !== undefined) return ledger.recorder
    const { file, exportName, root, name } = ledger.provide
    const warn = (line: string) => this.#print(`task-outcome: ${line}`)
    const begin = async () => readRecorded(await prepareExperiment({ file, exportName, root }), { ...(this.#shard === undefined ? {} : { shard: this.#shard }), warn })
    const start = this.#vitest === undefined ? await begin() : await recorderStart(this.#vitest, name, begin)
    return (ledger.recorder ??= new Recorder(start, warn))
  }

  /** Hands a finished case's run to the recorder, once; counts skipped, failed, stopped and over-budget cases. */
  #take(testCase: TestCase, live: boolean): void {
    const ledger = this.#ledgerFor(testCase.project)
    if (ledger === undefined) return
    const run = runOf(testCase.meta())
    const where = () => annotationPath(testCase.module.moduleId, ledger.provide.root)
    if (run === undefined) {
      if (this.#counted.has(testCase.id)) return
      this.#counted.add(testCase.id)
      const result = testCase.result()
      const kind = countUnmeasured(ledger, testCase.name, result)
      if (result.state !== 'pending') this.#updateLooks(ledger)
      if (kind === 'failed' && this.#github && !this.#vitestAnnotatesErrors && result.state === 'failed') {
        this.#print(annotation('error', where(), testCase.name, result.errors.map((error) => error.message).join('\n')))
      }
      return
    }
    ledger.active = true
    const outcome = ledger.recorder!.record(run)
    if (outcome.kind === 'already recorded') return
    if (outcome.kind === 'unrecorded') {
      this.#print(unrecordedLine(ledger, run, outcome))
      return
    }
    this.#updateLooks(ledger)
    this.#print(`  recorded ${runLabel(run)}: ${runSummary(run)}`)
    if (this.#github) this.#print(annotation('notice', where(), runLabel(run), runSummary(run)))
    const { appended } = ledger.recorder!
    if (live && !this.#live && (appended === 1 || appended % PLAIN_PROGRESS_EVERY === 0 || appended === ledger.toRun)) this.#print(this.#progress(ledger))
  }

  /** A sequential experiment's look, anew after each case (`looks.ts`). */
  #updateLooks(ledger: ExperimentLedger): void {
    takeLook(ledger, this.#shard, (line) => this.#print(line))
  }

  #progress(ledger: ExperimentLedger): string {
    return progressLine(ledger, this.#plans.get(ledger.provide.name) ?? ledger.recorder!.prepared.plan, this.#shard !== undefined)
  }

  #print(text: string): void {
    if (this.#toStderr) process.stderr.write(`${text}\n`)
    else if (this.#vitest === undefined) console.log(text)
    else this.#vitest.logger.log(text)
  }

  /** Ctrl-C (or SIGTERM) exits without onTestRunEnd: say what is kept and how to resume. Synchronous: the process is exiting. */
  #onExit(): void {
    if (!this.#active || this.#ended || !this.#interrupted) return
    for (const ledger of this.#ledgers.values()) {
      if (ledger.active) process.stderr.write(interruptedLine(ledger, this.#plans.get(ledger.provide.name)?.length, this.#shard))
    }
  }
}
