import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Reporter, TestCase, TestModule, TestProject, TestSpecification, Vitest } from 'vitest/node'
import { summariseSweep } from '../src/analysis/skills-summary.ts'
import { DataError, TaskOutcomeError } from '../src/errors.ts'
import type { ChainHead } from '../src/runs/chain.ts'
import { forecastExperiment } from '../src/runs/forecast.ts'
import { caseName, type PlannedRun } from '../src/runs/plan.ts'
import { checkRecordedRuns, currentSpecRuns, prepareExperiment, readRecordedSpec, specFilePath, type PreparedExperiment } from '../src/runs/prepare.ts'
import { formatProgress, progressOf } from '../src/runs/progress.ts'
import type { RecordedRun, RunRecord } from '../src/runs/record.ts'
import { foldIntoRunsFile, readRecordedRuns, shardFilePath, specRunKey, type ShardId } from '../src/runs/shards.ts'
import { writeConclusion, writeSweepFiles } from '../src/runs/report-files.ts'
import { readSpecFile } from '../src/runs/spec-file.ts'
import { reviseSpecRecord } from '../src/runs/spec-record.ts'
import { appendRun, checkPlanned, readRuns, runsFilePath } from '../src/runs/store.ts'
import { keepUnrecorded } from '../src/runs/unrecorded.ts'
import { formatArmSummary, runSummary, summariseArms } from '../src/runs/summary.ts'
import { describeVerification } from '../src/runs/transcript-check.ts'
import { REPORTER_BRAND } from '../src/vitest/attach.ts'
import { ALREADY_RECORDED, NOT_RUN_BUDGET, NOT_RUN_STOPPED, PROVIDE_KEY, runOf, type ExperimentProvide } from '../src/vitest/meta.ts'
import { NOT_RUN_LOOK_PENDING, NOT_RUN_SEQUENTIAL, writeLookNote, type LookNote } from '../src/vitest/looks.ts'
import { sequentialAnalysis } from '../src/analysis/sequential.ts'
import { settingsFromExperiment } from '../src/analysis/settings.ts'
import { currentSession } from '../src/vitest/session.ts'
import { readStopNote } from '../src/vitest/stop.ts'
import { annotation, annotationPath, appendStepSummary, inGithubActions, stepSummary } from './github.ts'

/** What the reporter tracks for one experiment during a Vitest invocation. */
interface ExperimentLedger {
  readonly provide: ExperimentProvide
  /** Where this invocation appends: the shard's own file for a shard, else runs.jsonl. */
  readonly targetFile: string
  /** Every recorded run (runs.jsonl and shard files), by (spec, task, arm, seed): progress. */
  readonly recorded: Map<string, RecordedRun>
  /** (spec, task, arm, seed) keys already in the target file: a run is appended at most once per spec. */
  readonly inTarget: Set<string>
  /** Where the target file ended after the recorder's last read or append: anything else appended since is refused. */
  head: ChainHead
  /** Why nothing more can be recorded for this experiment (the file was changed under the recorder). */
  refused: Error | undefined
  /** Cases of this invocation collected so far (a shard's share of the plan). */
  toRun: number
  appended: number
  skipped: number
  failed: number
  stopped: number
  overBudget: number
  budgetNote: string | undefined
  folded: number
  firstStartedAt: number | undefined
  /** True once a case of the experiment was seen or runs were folded: only such experiments are concluded. */
  active: boolean
  /** Case names of this invocation that ended without a record (failed, skipped, filtered): a sequential look cannot wait for them. */
  readonly endedWithoutRecord: Set<string>
  /** Cases a sequential design's stop (or a look not taken) skipped: never run, never paid for. */
  skippedByDesign: number
}

const ACTIVE_REPORTER = Symbol.for('task-outcome.active-reporter')
const CASE_NAME = /^(.+) › (.+) › seed (\d+)$/
/** Off a terminal, a progress line every this many recorded runs (and after the last). */
const PLAIN_PROGRESS_EVERY = 5
/** Reporters that print a machine-readable document to stdout unless given an output file. */
const STDOUT_DOCUMENTS = new Set(['json', 'junit', 'tap', 'tap-flat'])

/**
 * The task-outcome reporter. The plugin adds it to every Vitest invocation
 * that runs an experiment, whatever reporters the command line names; a user
 * may also list it (`reporters: ['default', new TaskOutcomeReporter()]`), and
 * it is then active once, never twice. Records arrive as test meta
 * (`meta.run`); each is appended the moment its case ends (to runs.jsonl, or
 * to the shard's own file for `--shard`), so Ctrl-C, SIGKILL or a crash loses
 * nothing measured. `--merge-reports` and every unsharded run fold the shard
 * files into runs.jsonl. It prints a progress line per experiment (live in a
 * terminal), and at the end the per-arm summary and the decision rule's
 * verdict; in GitHub Actions it annotates each run at its task and writes the
 * verdict to the job summary.
 */
export default class TaskOutcomeReporter implements Reporter {
  readonly [REPORTER_BRAND] = true
  readonly #ledgers = new Map<string, ExperimentLedger>()
  readonly #prepared = new Map<string, Promise<PreparedExperiment>>()
  readonly #counted = new Set<string>()
  readonly #planned = new Map<string, number>()
  readonly #plans = new Map<string, readonly PlannedRun[]>()
  #vitest: Vitest | undefined
  #active = true
  #shard: ShardId | undefined
  #merging = false
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
    this.#merging = Boolean(vitest.config.mergeReports)
    this.#toStderr = printsDocumentToStdout(vitest)
    this.#github = inGithubActions()
    for (const project of vitest.projects) this.#ledgerFor(project)
    process.once('SIGINT', () => this.#onInterrupt())
    process.once('SIGTERM', () => this.#onInterrupt())
    process.once('exit', () => this.#onExit())
  }

  /** Before the first run: the spec manifest beside runs.jsonl, shard files folded (unsharded runs and merges), the live line set up. */
  async onTestRunStart(specifications: ReadonlyArray<TestSpecification>): Promise<void> {
    if (!this.#active) return
    this.#vitestAnnotatesErrors = activeReporters(this.#vitest).some((reporter) => (reporter as object).constructor?.name === 'GithubActionsReporter')
    const running = new Set(specifications.map((specification) => this.#ledgerFor(specification.project)))
    for (const ledger of this.#ledgers.values()) {
      if (this.#shard === undefined && (running.has(ledger) || this.#merging)) this.#fold(ledger)
      if (running.has(ledger)) await this.#writeSpecOnce(ledger)
    }
    this.#live = this.#attachLiveLines()
  }

  onTestModuleCollected(testModule: TestModule): void {
    if (!this.#active) return
    const ledger = this.#ledgerFor(testModule.project)
    if (ledger === undefined) return
    for (const testCase of testModule.children.allTests()) if (CASE_NAME.test(testCase.name)) ledger.toRun++
  }

  onTestCaseReady(testCase: TestCase): void {
    if (!this.#active) return
    const ledger = this.#ledgerFor(testCase.project)
    if (ledger !== undefined) ledger.firstStartedAt ??= Date.now()
  }

  onTestCaseResult(testCase: TestCase): void {
    if (this.#active) this.#take(testCase, true)
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    if (!this.#active) return
    for (const testModule of testModules) {
      for (const testCase of testModule.children.allTests()) this.#take(testCase, false)
    }
    this.#ended = true
    const failures: string[] = []
    for (const ledger of this.#ledgers.values()) {
      if (!ledger.active) continue
      try {
        await this.#writeSpecOnce(ledger)
        this.#reportStops(ledger)
        if (this.#shard !== undefined) this.#reportShard(ledger)
        else await this.#conclude(ledger)
      } catch (error) {
        // One experiment's failure never hides another's: each is concluded on its own.
        failures.push(ledger.provide.name)
        const what = error instanceof TaskOutcomeError ? error.message : `the analysis failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
        this.#log(`\ntask-outcome · ${ledger.provide.name}: no conclusion: ${what}`)
      }
    }
    if (failures.length > 0) process.exitCode = 1
  }

  /** The experiment a project runs, when it is an experiment project. */
  #ledgerFor(project: TestProject): ExperimentLedger | undefined {
    const provide = (project.config.provide as Record<string, unknown> | undefined)?.[PROVIDE_KEY] as ExperimentProvide | undefined
    if (provide === undefined) return undefined
    let ledger = this.#ledgers.get(provide.name)
    if (ledger === undefined) {
      const targetFile = this.#shard === undefined ? runsFilePath(provide.outDir) : shardFilePath(provide.outDir, this.#shard)
      const read = readRuns(targetFile, { setAsideTorn: true, warn: (message) => this.#log(`task-outcome: ${message}`) })
      ledger = {
        provide,
        targetFile,
        recorded: new Map(readRecordedRuns(provide.outDir).records.map((record) => [specRunKey(record), record])),
        inTarget: new Set(read.records.map(specRunKey)),
        head: read.head,
        refused: undefined,
        toRun: 0,
        appended: 0,
        skipped: 0,
        failed: 0,
        stopped: 0,
        overBudget: 0,
        budgetNote: undefined,
        folded: 0,
        firstStartedAt: undefined,
        active: false,
        endedWithoutRecord: new Set(),
        skippedByDesign: 0,
      }
      this.#ledgers.set(provide.name, ledger)
    }
    return ledger
  }

  /**
   * A sequential experiment: applies its design to what is recorded and tells the workers (the look note in the
   * session folder) which blocks may run, or that the design stopped. A look whose block has cases that ended
   * without a record in this invocation cannot be taken: the later blocks are skipped, and a re-run resumes there.
   */
  #updateLooks(ledger: ExperimentLedger): void {
    const session = currentSession()
    if (session === undefined || this.#shard !== undefined) return
    // A failed preparation is the conclusion's to report; only a sequential experiment's look errors are said here.
    void this.#prepare(ledger).then(
      (prepared) => {
        const spec = prepared.experiment.spec
        if (spec.decision.sequential === undefined) return
        try {
          const settings = settingsFromExperiment(spec)
          const records = currentSpecRuns(prepared, [...ledger.recorded.values()])
          const analysis = sequentialAnalysis(records, settings, prepared.plan, settings.treatments[0]!)
          const of = analysis.design.looks.length
          let blocked: LookNote['blocked'] = null
          if (analysis.pendingLook !== null) {
            const tasks = new Set([...new Set(prepared.plan.map((run) => run.task))].sort().slice(0, analysis.design.looks[analysis.pendingLook - 1]!))
            const recordedKeys = new Set(records.map((record) => `${record.task} › ${record.arm} › seed ${record.seed}`))
            const open = prepared.plan.filter((run) => tasks.has(run.task) && !recordedKeys.has(caseName(run)))
            if (open.length > 0 && open.every((run) => ledger.endedWithoutRecord.has(caseName(run)))) {
              blocked = {
                look: analysis.pendingLook,
                reason: `${open.length} run(s) of its tasks ended without a record in this invocation; fix what failed and run again to resume`,
              }
            }
          }
          writeLookNote(session.dir, ledger.provide.name, {
            decided: analysis.looks.filter((look) => look.action === 'continue').length,
            of,
            stopped: analysis.stoppedAt === null ? null : { look: analysis.stoppedAt, reason: analysis.stoppedFor! },
            blocked,
          })
        } catch (error) {
          this.#log(`task-outcome · ${ledger.provide.name}: the sequential look could not be computed: ${error instanceof Error ? error.message : String(error)}`)
        }
      },
      () => undefined,
    )
  }

  /** Appends the shard files' runs to runs.jsonl (each once); says how many. */
  #fold(ledger: ExperimentLedger): void {
    const { appended, conflicts } = foldIntoRunsFile(ledger.provide.outDir)
    const read = readRuns(ledger.targetFile)
    for (const record of read.records) ledger.inTarget.add(specRunKey(record))
    ledger.head = read.head
    if (appended > 0) {
      ledger.folded += appended
      ledger.active = true
      this.#log(`task-outcome · ${ledger.provide.name}: ${appended} run(s) from the shard files appended to ${this.#relative(ledger, ledger.targetFile)}`)
    }
    if (conflicts.length > 0) {
      this.#warn(`task-outcome · ${ledger.provide.name}: run twice in different shard files, the first kept: ${conflicts.join('; ')}`)
    }
  }

  /** Records a finished case's run, once; counts skipped, failed, stopped and over-budget cases. */
  #take(testCase: TestCase, live: boolean): void {
    const ledger = this.#ledgerFor(testCase.project)
    if (ledger === undefined) return
    const run = runOf(testCase.meta())
    if (run === undefined) {
      if (this.#counted.has(testCase.id)) return
      this.#counted.add(testCase.id)
      const result = testCase.result()
      if (result.state !== 'pending') {
        ledger.endedWithoutRecord.add(testCase.name)
        this.#updateLooks(ledger)
      }
      const note = result.state === 'skipped' ? (result.note ?? '') : ''
      if (note.startsWith(NOT_RUN_SEQUENTIAL) || note.startsWith(NOT_RUN_LOOK_PENDING)) {
        ledger.active = true
        ledger.skippedByDesign++
        return
      }
      // A case filtered out (-t, a path filter) is skipped without a note: it says nothing about the experiment.
      if (result.state === 'skipped' && note === '') return
      if (result.state === 'pending') return
      ledger.active = true
      if (note.startsWith(ALREADY_RECORDED)) ledger.skipped++
      else if (note.startsWith(NOT_RUN_STOPPED)) ledger.stopped++
      else if (note.startsWith(NOT_RUN_BUDGET)) {
        ledger.overBudget++
        ledger.budgetNote ??= note
      } else if (result.state === 'failed') {
        ledger.failed++
        if (this.#github && !this.#vitestAnnotatesErrors) {
          const message = result.errors.map((error) => error.message).join('\n')
          this.#print(annotation('error', annotationPath(testCase.module.moduleId, ledger.provide.root), testCase.name, message))
        }
      }
      return
    }
    ledger.active = true
    const key = specRunKey(run)
    if (ledger.inTarget.has(key)) return
    ledger.inTarget.add(key)
    try {
      if (ledger.refused !== undefined) throw ledger.refused
      ledger.head = appendRun(ledger.targetFile, run, { head: ledger.head, warn: (message) => this.#log(`task-outcome: ${message}`) })
    } catch (error) {
      if (!(error instanceof TaskOutcomeError)) throw error
      ledger.refused ??= error
      const kept = this.#keepUnrecorded(ledger, run)
      this.#log(`task-outcome: ${caseName(run)} was measured but not recorded: ${error.message}\n  its record is kept in ${path.relative(ledger.provide.root, kept)}`)
      return
    }
    ledger.recorded.set(key, run as RecordedRun)
    ledger.appended++
    this.#updateLooks(ledger)
    this.#log(`  recorded ${caseName(run)}: ${runSummary(run)}`)
    if (this.#github) {
      this.#print(annotation('notice', annotationPath(testCase.module.moduleId, ledger.provide.root), caseName(run), runSummary(run)))
    }
    if (live && !this.#live && (ledger.appended === 1 || ledger.appended % PLAIN_PROGRESS_EVERY === 0 || ledger.appended === ledger.toRun)) {
      void this.#progressLine(ledger).then((line) => this.#log(line))
    }
  }

  /** A measured run the recorder refused to append is kept beside runs.jsonl, so nothing measured is lost. */
  #keepUnrecorded(ledger: ExperimentLedger, run: RunRecord): string {
    return keepUnrecorded(ledger.provide.outDir, run)
  }

  /** The experiment's plan as spec.json keeps it (read once: the progress line is drawn many times a second). */
  #planOf(ledger: ExperimentLedger, prepared: PreparedExperiment): readonly PlannedRun[] {
    let plan = this.#plans.get(ledger.provide.name)
    if (plan === undefined) {
      plan = currentPlan(ledger.provide.outDir, prepared)
      this.#plans.set(ledger.provide.name, plan)
      this.#planned.set(ledger.provide.name, plan.length)
    }
    return plan
  }

  /** The experiment's progress line now. */
  async #progressLine(ledger: ExperimentLedger): Promise<string> {
    const prepared = await this.#prepare(ledger)
    return this.#progressLineOf(ledger, prepared)
  }

  #progressLineOf(ledger: ExperimentLedger, prepared: PreparedExperiment): string {
    const current = [...ledger.recorded.values()].filter((record) => record.specSha256 === prepared.specSha256)
    const done = ledger.appended + ledger.failed + ledger.stopped + ledger.overBudget
    // Vitest collects a task's module only when it starts, so an unsharded run counts what the plan still lacks.
    const remaining =
      this.#shard === undefined
        ? Math.max(0, this.#planOf(ledger, prepared).length - current.length - ledger.failed - ledger.stopped - ledger.overBudget)
        : Math.max(0, ledger.toRun - done - ledger.skipped)
    const etaMs = ledger.firstStartedAt === undefined || ledger.appended === 0 ? null : ((Date.now() - ledger.firstStartedAt) / done) * remaining
    return formatProgress(
      progressOf({
        experiment: ledger.provide.name,
        arms: Object.keys(prepared.experiment.spec.arms),
        records: current,
        planned: this.#planOf(ledger, prepared).length,
        forecastUsd: forecastExperiment(prepared).totalUsd,
        etaMs,
      }),
    )
  }

  /**
   * In a terminal, Vitest's default reporter keeps a live summary at the
   * bottom of the screen; each experiment's progress line joins it. Returns
   * false when there is no such summary (off a terminal, other reporters):
   * then plain lines are printed every few runs instead.
   */
  #attachLiveLines(): boolean {
    if (!process.stdout.isTTY) return false
    const summary = activeReporters(this.#vitest)
      .map((reporter) => (reporter as unknown as { summary?: { createSummary?: () => string[] } }).summary)
      .find((candidate) => typeof candidate?.createSummary === 'function')
    if (summary === undefined) return false
    const original = summary.createSummary!.bind(summary)
    const prepared = new Map<string, PreparedExperiment>()
    for (const ledger of this.#ledgers.values()) void this.#prepare(ledger).then((value) => prepared.set(ledger.provide.name, value))
    summary.createSummary = () => {
      const lines = original()
      for (const ledger of this.#ledgers.values()) {
        const ready = prepared.get(ledger.provide.name)
        if (ledger.active && ready !== undefined && !this.#ended) lines.push(` ${this.#progressLineOf(ledger, ready)}`)
      }
      return lines
    }
    return true
  }

  #print(text: string): void {
    if (this.#toStderr) process.stderr.write(`${text}\n`)
    else if (this.#vitest === undefined) console.log(text)
    else this.#vitest.logger.log(text)
  }

  #log(text: string): void {
    this.#print(text)
  }

  #warn(text: string): void {
    if (this.#vitest === undefined) console.warn(text)
    else this.#vitest.logger.warn(text)
  }

  #relative(ledger: ExperimentLedger, file: string): string {
    return path.relative(ledger.provide.root, file)
  }

  #prepare(ledger: ExperimentLedger): Promise<PreparedExperiment> {
    let prepared = this.#prepared.get(ledger.provide.name)
    if (prepared === undefined) {
      const { file, exportName, root } = ledger.provide
      prepared = prepareExperiment({ file, exportName, root })
      this.#prepared.set(ledger.provide.name, prepared)
      prepared.then((value) => this.#planned.set(ledger.provide.name, value.plan.length)).catch(() => undefined)
    }
    return prepared
  }

  /**
   * Keeps spec.json beside runs.jsonl: the spec's manifest (so a later change
   * can be named file by file), its change log, and its plan (every planned
   * run: what the reporter, `analyze`, `power` and `publish` judge
   * completeness against). It only grows: when the
   * spec changed under recorded runs (and the plugin accepted the change-log
   * entry), the recorded spec moves whole into `earlier`. Checked again here,
   * so a refused change is never written.
   */
  async #writeSpecOnce(ledger: ExperimentLedger): Promise<void> {
    const file = specFilePath(ledger.provide.outDir)
    const prepared = await this.#prepare(ledger)
    const { records } = readRecordedRuns(ledger.provide.outDir)
    try {
      checkRecordedRuns(prepared, records)
    } catch {
      return
    }
    const { root, file: experimentFile, exportName } = prepared.experiment
    const revised = reviseSpecRecord(
      readRecordedSpec(ledger.provide.outDir),
      {
        specSha256: prepared.specSha256,
        manifest: prepared.manifest,
        changeLog: prepared.changeLog,
        source: { file: path.relative(root, experimentFile).split(path.sep).join('/'), exportName },
        plan: prepared.plan.map(({ task, arm, seed, order }) => ({ task, arm, seed, order })),
        ...(prepared.contamination === null ? {} : { contamination: prepared.contamination }),
      },
      records.length,
      new Date(),
    )
    if (revised === undefined) return
    mkdirSync(path.dirname(file), { recursive: true })
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(revised, null, 2)}\n`)
    renameSync(temporary, file)
  }

  /** A harness failure that stopped the experiment, and runs the budget did not start: said once each. */
  #reportStops(ledger: ExperimentLedger): void {
    const name = ledger.provide.name
    const session = currentSession()
    const note = session === undefined ? undefined : readStopNote(session.dir, name)
    if (note !== undefined) {
      this.#log(
        `\ntask-outcome · ${name} STOPPED at ${note.run}: a harness failure no retry can help (${note.reason}): ` +
          `${note.message.split('\n').find((line) => line.trim() !== '' && !line.startsWith('no measurement after')) ?? note.message}\n` +
          `  ${ledger.stopped} run(s) not started, nothing recorded for them. Fix it, then run again to resume: ${this.#resumeCommand(name)}`,
      )
    }
    if (ledger.overBudget > 0) {
      this.#log(
        `\ntask-outcome · ${name} BUDGET: ${ledger.overBudget} run(s) not started (${ledger.budgetNote?.slice(NOT_RUN_BUDGET.length + 2)}). ` +
          `They are missing from the data. To record them, raise maxBudgetUsd and run again: ${this.#resumeCommand(name)}`,
      )
    }
  }

  #resumeCommand(name: string): string {
    return `npx vitest run --project ${name}${this.#shard === undefined ? '' : ` --shard=${this.#shard.index}/${this.#shard.count}`}`
  }

  /** A shard ends without a verdict: its runs are one part of the experiment. */
  #reportShard(ledger: ExperimentLedger): void {
    const shard = this.#shard!
    this.#log(
      [
        '',
        `task-outcome · ${ledger.provide.name} · shard ${shard.index}/${shard.count} · ${this.#relative(ledger, ledger.targetFile)}`,
        `  this invocation: ${ledger.appended} run(s) recorded, ${ledger.skipped} already recorded (skipped, not run again)` +
          (ledger.failed > 0 ? `, ${ledger.failed} failed (nothing recorded; see the failures above)` : ''),
        `  no verdict from one shard: merge every shard with \`npx vitest --merge-reports <blob folder>\` (it folds the shard files into runs.jsonl)`,
      ].join('\n'),
    )
  }

  /**
   * Skill experiments: summary.json (per task and condition) beside the
   * records, and one line per completed sweep in the history file.
   */
  #writeSweep(prepared: PreparedExperiment, ledger: ExperimentLedger, records: readonly RecordedRun[], complete: boolean, verdict: string): string {
    const { spec, root, outDir } = prepared.experiment
    const summary = summariseSweep(spec.name, Object.keys(spec.arms), records)
    const history =
      complete && ledger.appended + ledger.folded > 0
        ? {
            file: path.resolve(root, spec.skills?.history ?? path.join(spec.output, 'effectiveness-history.jsonl')),
            line: { experiment: spec.name, specSha256: prepared.specSha256, finishedAt: new Date().toISOString(), runs: records.length, verdict, conditions: summary.conditions },
          }
        : null
    return writeSweepFiles({ root, outDir, summary, history })
  }

  /**
   * Verifies the records (chain, transcripts, plan), then applies the
   * decision rule. Throws when the records cannot be trusted: the file was
   * changed under the recorder, or its read fails.
   */
  async #conclude(ledger: ExperimentLedger): Promise<void> {
    const prepared = await this.#prepare(ledger)
    const relative = this.#relative(ledger, ledger.targetFile)
    if (ledger.refused !== undefined) throw ledger.refused
    const read = readRuns(ledger.targetFile)
    checkPlanned(read.records, prepared.plan, relative, prepared.specSha256)
    if (read.head.bytes !== ledger.head.bytes || read.head.sha256 !== ledger.head.sha256) {
      throw new DataError(
        `${relative} changed after the recorder's last append (the recorder's last line is line ${ledger.head.lines}; the file now ends at line ${read.head.lines}, and not as the recorder left it). ` +
          'Records are never edited: restore the file as the recorder left it, from a copy.',
      )
    }
    const all = read.records
    const records = currentSpecRuns(prepared, all)
    const arms = summariseArms(records, Object.keys(prepared.experiment.spec.arms))
    const lines = [
      '',
      `task-outcome · ${ledger.provide.name} · ${relative}`,
      `  ${describeVerification(relative, read.head.lines, read.transcripts)}`,
      `  this invocation: ${ledger.appended} run(s) recorded, ${ledger.skipped} already recorded (skipped, not run again)` +
        (ledger.folded > 0 ? `, ${ledger.folded} folded from shard files` : '') +
        (ledger.failed > 0 ? `, ${ledger.failed} failed (nothing recorded; see the failures above)` : '') +
        (ledger.skippedByDesign > 0 ? `, ${ledger.skippedByDesign} skipped by the sequential design (never run, never paid for)` : ''),
      formatArmSummary(arms),
    ]
    if (records.length < all.length) {
      lines.push(
        `  ${all.length - records.length} run(s) recorded under earlier specs are kept in ${relative} and not pooled: this analysis uses spec ${prepared.specSha256.slice(0, 12)} only`,
      )
    }
    // Loaded here, not at the top: the report's plotting library (Vega) awaits at its module's top level, and a
    // CommonJS vitest.config that require()s the package must not reach it (ERR_REQUIRE_ASYNC_MODULE).
    const { concludeExperiment } = await import('../src/analysis/conclude.ts')
    const conclusion = concludeExperiment({
      experiment: prepared.experiment.spec,
      records,
      // The plan spec.json keeps, the one `analyze` and `power` read (the same as prepared.plan when the spec is this one).
      plan: currentPlan(ledger.provide.outDir, prepared),
      earlierSpecs: earlierSpecCounts(all, prepared.specSha256),
      contamination: prepared.contamination,
      promptAllowances: prepared.tasks.flatMap((task) => (task.kind === 'git-fix' ? (task.metadata.allow ?? []).map(({ word, reason }) => ({ task: task.id, word, reason })) : [])),
    })
    lines.push(writeConclusion(ledger.provide.outDir, conclusion).text)
    if (prepared.experiment.spec.skills !== undefined) lines.push(this.#writeSweep(prepared, ledger, records, conclusion.complete, conclusion.verdict))
    this.#log(lines.join('\n'))
    if (this.#github) appendStepSummary(stepSummary(ledger.provide.name, conclusion.text, arms))
  }

  #onInterrupt(): void {
    this.#interrupted = true
  }

  /** Ctrl-C (or SIGTERM) exits without onTestRunEnd: say what is kept and how to resume. Synchronous: the process is exiting. */
  #onExit(): void {
    if (!this.#active || this.#ended || !this.#interrupted) return
    for (const ledger of this.#ledgers.values()) {
      if (!ledger.active) continue
      const planned = this.#planned.get(ledger.provide.name)
      process.stderr.write(
        `\ntask-outcome · ${ledger.provide.name}: interrupted. ${ledger.appended} run(s) recorded in this invocation, ` +
          `${ledger.recorded.size}${planned === undefined ? '' : ` of ${planned} planned`} recorded in all, kept in ${this.#relative(ledger, ledger.targetFile)}. ` +
          `Runs under way were not recorded. Resume with: ${this.#resumeCommand(ledger.provide.name)}\n`,
      )
    }
  }
}

/** The reporters Vitest created for this invocation (not in its public types; empty where it is not there). */
function activeReporters(vitest: Vitest | undefined): unknown[] {
  const reporters = (vitest as unknown as { reporters?: unknown[] } | undefined)?.reporters
  return Array.isArray(reporters) ? reporters : []
}

/** The plan of the current spec as spec.json keeps it (the prepared plan when spec.json is another spec's or absent). */
function currentPlan(outDir: string, prepared: PreparedExperiment): readonly PlannedRun[] {
  const specFile = readSpecFile(outDir)
  return specFile?.plan != null && specFile.recorded.specSha256 === prepared.specSha256 ? specFile.plan : prepared.plan
}

/** How many runs each earlier spec hash holds (kept, never pooled). */
function earlierSpecCounts(records: readonly RecordedRun[], current: string): { specSha256: string; runs: number }[] {
  const counts = new Map<string, number>()
  for (const record of records) if (record.specSha256 !== current) counts.set(record.specSha256, (counts.get(record.specSha256) ?? 0) + 1)
  return [...counts].map(([specSha256, runs]) => ({ specSha256, runs }))
}

/** True when a reporter prints its document to stdout (junit or json without an output file): our lines then go to stderr. */
function printsDocumentToStdout(vitest: Vitest): boolean {
  const outputFile = (vitest.config as unknown as { outputFile?: string | Record<string, string> }).outputFile
  const reporters = vitest.config.reporters as unknown as unknown[]
  return reporters.some((entry) => {
    if (!Array.isArray(entry)) return false
    const [reference, options] = entry as [unknown, Record<string, unknown> | undefined]
    if (typeof reference !== 'string' || !STDOUT_DOCUMENTS.has(reference)) return false
    if (typeof options?.outputFile === 'string') return false
    if (typeof outputFile === 'string') return false
    return typeof outputFile !== 'object' || outputFile[reference] === undefined
  })
}
