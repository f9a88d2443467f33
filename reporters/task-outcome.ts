import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Reporter, TestCase, TestModule, TestProject, TestSpecification, Vitest } from 'vitest/node'
import { summariseArms, formatArmSummary } from '../src/runs/summary.ts'
import { checkRecordedRuns, currentSpecRuns, prepareExperiment, readRecordedSpec, specFilePath, type PreparedExperiment } from '../src/runs/prepare.ts'
import { reviseSpecRecord } from '../src/runs/spec-record.ts'
import { readSpecFile } from '../src/runs/spec-file.ts'
import type { PlannedRun } from '../src/runs/plan.ts'

/** The plan of the current spec as spec.json keeps it (the prepared plan when spec.json is another spec's or absent). */
function currentPlan(outDir: string, prepared: PreparedExperiment): readonly PlannedRun[] {
  const specFile = readSpecFile(outDir)
  return specFile?.plan != null && specFile.recorded.specSha256 === prepared.specSha256 ? specFile.plan : prepared.plan
}
import { runKey, type RecordedRun, type RunRecord } from '../src/runs/record.ts'
import { summariseSweep } from '../src/analysis/skills-summary.ts'
import { writeConclusion, writeSweepFiles } from '../src/runs/report-files.ts'
import { caseName } from '../src/runs/plan.ts'
import { runSummary } from '../src/runs/summary.ts'
import { appendRun, checkPlanned, readRuns, runsFilePath } from '../src/runs/store.ts'
import type { ChainHead } from '../src/runs/chain.ts'
import { describeVerification } from '../src/runs/transcript-check.ts'
import { DataError, TaskOutcomeError } from '../src/errors.ts'
import { concludeExperiment } from '../src/analysis/conclude.ts'
import { ALREADY_RECORDED, PROVIDE_KEY, runOf, type ExperimentProvide } from '../src/vitest/meta.ts'

/** A run's identity within its spec: after a logged change the same (task, arm, seed) is measured again under the new hash. */
function recordKey(run: { specSha256: string; task: string; arm: string; seed: number }): string {
  return `${run.specSha256}\u0000${runKey(run)}`
}

/** How many runs each earlier spec hash holds (kept, never pooled). */
function earlierSpecCounts(records: readonly RecordedRun[], current: string): { specSha256: string; runs: number }[] {
  const counts = new Map<string, number>()
  for (const record of records) if (record.specSha256 !== current) counts.set(record.specSha256, (counts.get(record.specSha256) ?? 0) + 1)
  return [...counts].map(([specSha256, runs]) => ({ specSha256, runs }))
}

/** What the reporter tracks for one experiment during a Vitest run. */
interface ExperimentLedger {
  readonly provide: ExperimentProvide
  readonly runsFile: string
  /** (spec hash, task, arm, seed) keys already in runs.jsonl: a run is appended at most once per spec. */
  readonly recorded: Set<string>
  /** Where the file ended after the recorder's last read or append: anything else appended since is refused. */
  head: ChainHead
  /** Why nothing more can be recorded for this experiment (the file was changed under the recorder). */
  refused: Error | undefined
  appended: number
  skipped: number
  failed: number
}

/**
 * The task-outcome reporter. Records arrive as test meta (`meta.run`); each is
 * appended to the experiment's runs.jsonl the moment its case ends (so Ctrl-C
 * or a crash loses nothing measured). At the end of the run it appends any
 * record it has not seen yet (the path `--merge-reports` of blob shards takes),
 * prints a per-arm summary and applies the decision rule.
 */
export default class TaskOutcomeReporter implements Reporter {
  readonly #ledgers = new Map<string, ExperimentLedger>()
  readonly #prepared = new Map<string, Promise<PreparedExperiment>>()
  #vitest: Vitest | undefined

  onInit(vitest: Vitest): void {
    this.#vitest = vitest
  }

  /** Keeps the spec manifest beside runs.jsonl before the first run of each experiment in this invocation. */
  async onTestRunStart(specifications: ReadonlyArray<TestSpecification>): Promise<void> {
    const ledgers = new Set(specifications.map((specification) => this.#ledgerFor(specification.project)))
    for (const ledger of ledgers) if (ledger !== undefined) await this.#writeSpecOnce(ledger)
  }

  onTestCaseResult(testCase: TestCase): void {
    this.#take(testCase)
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    for (const testModule of testModules) {
      for (const testCase of testModule.children.allTests()) this.#take(testCase)
    }
    const failures: string[] = []
    for (const ledger of this.#ledgers.values()) {
      try {
        await this.#writeSpecOnce(ledger)
        await this.#conclude(ledger)
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
      const runsFile = runsFilePath(provide.outDir)
      const read = readRuns(runsFile, { setAsideTorn: true, warn: (message) => this.#log(`task-outcome: ${message}`) })
      ledger = {
        provide,
        runsFile,
        recorded: new Set(read.records.map(recordKey)),
        head: read.head,
        refused: undefined,
        appended: 0,
        skipped: 0,
        failed: 0,
      }
      this.#ledgers.set(provide.name, ledger)
    }
    return ledger
  }

  /** Appends a finished case's record, once; counts skipped (already recorded) and failed cases. */
  #take(testCase: TestCase): void {
    const ledger = this.#ledgerFor(testCase.project)
    if (ledger === undefined) return
    const run = runOf(testCase.meta())
    if (run === undefined) {
      // Counted once per case: onTestRunEnd walks cases already seen.
      if (this.#counted.has(testCase.id)) return
      this.#counted.add(testCase.id)
      const result = testCase.result()
      if (result.state === 'skipped' && result.note?.startsWith(ALREADY_RECORDED) === true) ledger.skipped++
      else if (result.state === 'failed') ledger.failed++
      return
    }
    const key = recordKey(run)
    if (ledger.recorded.has(key)) return
    ledger.recorded.add(key)
    try {
      if (ledger.refused !== undefined) throw ledger.refused
      ledger.head = appendRun(ledger.runsFile, run, { head: ledger.head, warn: (message) => this.#log(`task-outcome: ${message}`) })
    } catch (error) {
      if (!(error instanceof TaskOutcomeError)) throw error
      ledger.refused ??= error
      const kept = this.#keepUnrecorded(ledger, run)
      this.#log(`task-outcome: ${caseName(run)} was measured but not recorded: ${error.message}\n  its record is kept in ${path.relative(ledger.provide.root, kept)}`)
      return
    }
    ledger.appended++
    this.#log(`  recorded ${caseName(run)}: ${runSummary(run)}`)
  }

  /** A measured run the recorder refused to append is kept beside runs.jsonl, so nothing measured is lost. */
  #keepUnrecorded(ledger: ExperimentLedger, run: RunRecord): string {
    const dir = path.join(ledger.provide.outDir, 'unrecorded')
    mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `${run.task}.${run.arm}.seed-${run.seed}.${Date.now()}.json`)
    writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`)
    return file
  }

  readonly #counted = new Set<string>()

  #log(text: string): void {
    if (this.#vitest === undefined) console.log(text)
    else this.#vitest.logger.log(text)
  }

  #prepare(ledger: ExperimentLedger): Promise<PreparedExperiment> {
    let prepared = this.#prepared.get(ledger.provide.name)
    if (prepared === undefined) {
      const { file, exportName, root } = ledger.provide
      prepared = prepareExperiment({ file, exportName, root })
      this.#prepared.set(ledger.provide.name, prepared)
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
    const { records } = readRuns(ledger.runsFile)
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

  /**
   * Skill experiments: summary.json (per task and condition) beside the
   * records, and one line per completed sweep in the history file.
   */
  #writeSweep(prepared: PreparedExperiment, ledger: ExperimentLedger, records: readonly RecordedRun[], complete: boolean, verdict: string): string {
    const { spec, root, outDir } = prepared.experiment
    const summary = summariseSweep(spec.name, Object.keys(spec.arms), records)
    const history =
      complete && ledger.appended > 0
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
    const relative = path.relative(ledger.provide.root, ledger.runsFile)
    if (ledger.refused !== undefined) throw ledger.refused
    const read = readRuns(ledger.runsFile)
    checkPlanned(read.records, prepared.plan, relative, prepared.specSha256)
    if (read.head.bytes !== ledger.head.bytes || read.head.sha256 !== ledger.head.sha256) {
      throw new DataError(
        `${relative} changed after the recorder's last append (the recorder's last line is line ${ledger.head.lines}; the file now ends at line ${read.head.lines}, and not as the recorder left it). ` +
          'Records are never edited: restore the file as the recorder left it, from a copy.',
      )
    }
    const all = read.records
    const records = currentSpecRuns(prepared, all)
    const lines = [
      '',
      `task-outcome · ${ledger.provide.name} · ${relative}`,
      `  ${describeVerification(relative, read.head.lines, read.transcripts)}`,
      `  this invocation: ${ledger.appended} run(s) recorded, ${ledger.skipped} already recorded (skipped, not run again)` +
        (ledger.failed > 0 ? `, ${ledger.failed} failed (nothing recorded; see the failures above)` : ''),
      formatArmSummary(summariseArms(records, Object.keys(prepared.experiment.spec.arms))),
    ]
    if (records.length < all.length) {
      lines.push(`  ${all.length - records.length} run(s) recorded under earlier specs are kept in ${relative} and not pooled: this analysis uses spec ${prepared.specSha256.slice(0, 12)} only`)
    }
    const conclusion = concludeExperiment({
      experiment: prepared.experiment.spec,
      records,
      // The plan spec.json keeps, the one `analyze` and `power` read (the same as prepared.plan when the spec is this one).
      plan: currentPlan(ledger.provide.outDir, prepared),
      earlierSpecs: earlierSpecCounts(all, prepared.specSha256),
      contamination: prepared.contamination,
      promptAllowances: prepared.tasks.flatMap((task) =>
        task.kind === 'git-fix' ? (task.metadata.allow ?? []).map(({ word, reason }) => ({ task: task.id, word, reason })) : [],
      ),
    })
    lines.push(writeConclusion(ledger.provide.outDir, conclusion).text)
    if (prepared.experiment.spec.skills !== undefined) lines.push(this.#writeSweep(prepared, ledger, records, conclusion.complete, conclusion.verdict))
    this.#log(lines.join('\n'))
  }
}
