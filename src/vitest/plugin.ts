import path from 'node:path'
import type { Plugin } from 'vite'
import type { TestProject, Vitest } from 'vitest/node'
import { requireAgentPackage } from '../agents/packages.ts'
import type { LoadedExperiment } from '../experiment/load.ts'
import { armAgentSpec } from '../runs/execute.ts'
import { currentSpecRuns, prepareLoadedExperiment, type PreparedExperiment } from '../runs/prepare.ts'
import type { RecordedRun, Versions } from '../runs/record.ts'
import { readRecorded, type RecorderStart } from '../runs/recorder.ts'
import { experimentSandboxVersion } from '../runs/sandbox.ts'
import { shardFilePath } from '../runs/shards.ts'
import { runKey } from '../shared/run-label.ts'
import { attachReporter } from './attach.ts'
import { namedByProjectFilter, refuse, refusedOption } from './guards.ts'
import type { TaskModulePayload } from './payload.ts'
import { startSession } from './session.ts'
import { lookBlock, lookTaskCounts } from '../experiment/sequential-looks.ts'
import { recorderStart } from './start.ts'
import { runLabel } from '../shared/run-label.ts'

// Beside this file, with its extension: `declare.ts` in the sources, `declare.js` in the build.
const DECLARE_MODULE = path.resolve(import.meta.dirname, `declare${path.extname(import.meta.filename)}`)

/** The test runner a task's recorded runs were judged with (`versions.testRunner`; absent when none says). */
function recordedTestRunner(records: readonly RecordedRun[]): { recordedTestRunner?: string | null } {
  for (const record of records) {
    const runner = (record.versions as { testRunner?: unknown } | undefined)?.testRunner
    if (runner === null || typeof runner === 'string') return { recordedTestRunner: runner }
  }
  return {}
}

/** The per-case timeout: every attempt's agent and oracle timeouts, the backoffs, and a minute of slack per attempt. */
export function caseTimeoutMs(experiment: LoadedExperiment): number {
  const { timeoutSeconds, oracleTimeoutSeconds, retries } = experiment.spec
  const backoff = Array.from({ length: retries.attempts - 1 }, (_, i) => retries.backoffSeconds * 2 ** i).reduce((a, b) => a + b, 0)
  return (retries.attempts * (timeoutSeconds + oracleTimeoutSeconds + 60) + backoff) * 1000
}

/** Everything the plugin computes once per invocation: the prepared experiment and what is already recorded. */
interface PluginState {
  readonly prepared: PreparedExperiment
  /** The current spec's recorded runs, by (task, arm, seed). */
  readonly recorded: Map<string, RecordedRun>
  readonly versionsByArm: Record<string, Versions>
  readonly start: RecorderStart
}

/**
 * The experiment's whole-run budget as the workers apply it: the limit, and
 * what the runs already recorded cost. A shard sees only its own spending, so
 * it gets its share of the limit and counts its own shard's records.
 */
function budgetFor(experiment: LoadedExperiment, { recorded, start }: PluginState, shard: { index: number; count: number } | undefined): TaskModulePayload['budget'] {
  const { maxBudgetUsd, budgetUsd } = experiment.spec
  if (maxBudgetUsd === undefined) return null
  const records = [...recorded.values()]
  const shardFile = shard === undefined ? undefined : shardFilePath(experiment.outDir, shard)
  const own = shard === undefined ? records : (start.read.files.find((read) => read.file === shardFile)?.records ?? [])
  return {
    maxUsd: shard === undefined ? maxBudgetUsd : maxBudgetUsd / shard.count,
    spentBeforeUsd: own.reduce((sum, record) => sum + record.costUsd, 0),
    runCapUsd: budgetUsd,
    shard: shard === undefined ? null : `${shard.index}/${shard.count}`,
  }
}

function versionsByArm(recorded: PluginState['recorded']): Record<string, Versions> {
  const byArm: Record<string, Versions> = {}
  for (const record of recorded.values()) {
    if (record.versions !== undefined && !(record.arm in byArm)) byArm[record.arm] = record.versions
  }
  return byArm
}

const WATCH_SWITCHED_OFF = Symbol.for('task-outcome.watch-switched-off')
const SESSION_STARTED = Symbol.for('task-outcome.session-started')

/** An experiment never watches: a saved file must never re-run paid agents. Switches watch mode off for the whole invocation, once. */
function refuseToWatch(vitest: Vitest): void {
  const holder = vitest as unknown as Record<symbol, unknown>
  if (!vitest.config.watch || holder[WATCH_SWITCHED_OFF] === true) return
  holder[WATCH_SWITCHED_OFF] = true
  vitest.config.watch = false
  ;(vitest as unknown as { watcher?: { unregisterWatcher?: () => void } }).watcher?.unregisterWatcher?.()
  vitest.logger.log('task-outcome: experiments do not watch: this runs once, as `vitest run` does, and exits (a saved file must never re-run paid agents).')
}

/**
 * The worker limit the user gave (`--maxWorkers`, `VITEST_MAX_WORKERS` or the
 * root config), or undefined when they gave none. Vitest 4.1 leaves the root's
 * `maxWorkers` unset then; Vitest 5 fills in its default (one less than the
 * cores) and says in `providedOptions` whether the user gave it, so only a
 * limit the user gave overrides the experiment's `maxWorkers`.
 */
function userMaxWorkers(vitest: Vitest): number | undefined {
  const config = vitest.config as unknown as { maxWorkers?: number; providedOptions?: { maxWorkers?: boolean } }
  if (config.providedOptions !== undefined && config.providedOptions.maxWorkers !== true) return undefined
  return config.maxWorkers
}

/** Starts the invocation's session (watchdog, own workspace folder) once per Vitest, and says what stale folders it removed. */
function startSessionOnce(vitest: Vitest): void {
  const holder = vitest as unknown as Record<symbol, unknown>
  if (holder[SESSION_STARTED] === true) return
  holder[SESSION_STARTED] = true
  const { removedStale } = startSession()
  if (removedStale.length > 0) {
    vitest.logger.log(`task-outcome: removed ${removedStale.length} workspace folder(s) left by a killed run: ${removedStale.map((dir) => path.basename(dir)).join(', ')}`)
  }
}

/** Whether a module id is a task folder's `metadata.json` in this experiment's task set (a generated test module). */
function isTaskModule(id: string, tasksDir: string): boolean {
  const file = id.split('?')[0]!
  return path.basename(file) === 'metadata.json' && path.dirname(path.dirname(file)) === tasksDir
}

/** The part of `configureVitest`'s context that keys Vitest's file-system module cache (Vitest 4.1 and 5 name it differently). */
interface CacheKeyContext {
  readonly defineCacheKeyGenerator?: (generator: (context: { id: string }) => string | false | undefined) => void
  readonly experimental_defineCacheKeyGenerator?: (generator: (context: { id: string }) => string | false | undefined) => void
}

/**
 * A task's test module carries what is already recorded, so it must be made
 * anew on every run: Vitest 5 caches transformed modules on disk by default
 * (`fsModuleCache`; opt-in on 4.1), keyed by the file's content, and a cached
 * module would re-run recorded runs. The generator bails those modules out.
 */
function neverCacheTaskModules(context: CacheKeyContext, isTask: (id: string) => boolean): void {
  const define = context.defineCacheKeyGenerator ?? context.experimental_defineCacheKeyGenerator
  define?.(({ id }) => (isTask(id) ? false : undefined))
}

/** The spec manifest's entries for one task folder (paths relative to the project root). */
function taskManifest(files: Readonly<Record<string, string>>, taskDir: string): Record<string, string> {
  const prefix = `${taskDir.split(path.sep).join('/')}/`
  return Object.fromEntries(Object.entries(files).filter(([file]) => file.startsWith(prefix)))
}

/**
 * The task-outcome Vite plugin for one experiment. In Vitest's main process it
 * refuses options that would bias the measurement, switches watch mode off,
 * adds the task-outcome reporter (recording belongs to the plugin, whatever
 * reporters the command line names), starts the invocation's watchdog,
 * validates the tasks, checks the recorded runs against the spec (a changed
 * spec stops the experiment before any run) and turns each task's
 * `metadata.json` into a test module whose cases are the task's runs.
 */
export function taskOutcomePlugin(experiment: LoadedExperiment): Plugin {
  let state: Promise<PluginState> | undefined
  let invocation: Vitest | undefined
  // The invocation's one start, shared with the reporter: a check it failed stops the experiment here, before any run.
  const prepare = (): Promise<PluginState> =>
    (state ??= (async () => {
      const begin = async () =>
        readRecorded(await prepareLoadedExperiment(experiment), { ...(shard === undefined ? {} : { shard }), warn: (line) => invocation?.logger.warn(`task-outcome: ${line}`) })
      const start = invocation === undefined ? await begin() : await recorderStart(invocation, name, begin)
      const failed = start.refusal ?? start.offPlan
      if (failed !== undefined) throw failed
      const recorded = new Map(currentSpecRuns(start.prepared, start.read.records).map((record) => [runKey(record), record]))
      return { prepared: start.prepared, recorded, versionsByArm: versionsByArm(recorded), start }
    })())
  const tasksDir = experiment.tasksDir
  const name = experiment.spec.name
  let shard: { index: number; count: number } | undefined
  return {
    name: 'task-outcome',
    enforce: 'pre',
    async configureVitest(context) {
      const { vitest, project } = context as unknown as { vitest: Vitest; project: TestProject }
      neverCacheTaskModules(context, (id) => isTaskModule(id, tasksDir))
      attachReporter(vitest)
      if (vitest.config.mergeReports) return
      const refusal = refusedOption(project, name)
      if (refusal !== undefined) refuse(vitest, refusal)
      refuseToWatch(vitest)
      // --maxWorkers (or the root config's) is a resource limit: it wins over the experiment's own.
      const limit = userMaxWorkers(vitest)
      if (limit !== undefined) project.config.maxWorkers = limit
      shard = vitest.config.shard ?? undefined
      invocation = vitest
      // An agent CLI is an optional peer dependency: a missing one stops the experiment here, in one line, before any run.
      for (const arm of Object.keys(experiment.spec.arms)) requireAgentPackage(armAgentSpec(experiment, arm))
      const { prepared } = await prepare()
      if (prepared.tasks.length === 0) {
        const relative = path.relative(experiment.root, tasksDir) || '.'
        const make =
          `Make them first: \`npx task-outcome harvest --repo <your repo> --out candidates.json --test-command "<cmd>"\`, ` +
          `then \`npx task-outcome select --candidates candidates.json --out ${relative}\`.`
        if (namedByProjectFilter(vitest, name)) refuse(vitest, `experiment "${name}" has no task folders in ${relative}. ${make}`)
        vitest.logger.warn(`task-outcome: experiment "${name}" has no task folders in ${relative}: skipped. ${make}`)
        return
      }
      if (experiment.spec.decision.sequential !== undefined) {
        if (shard !== undefined) {
          refuse(
            vitest,
            `experiment "${name}" has a sequential design (decision.sequential): its looks need every task's runs in one invocation, so it cannot be sharded; run it without --shard`,
          )
        }
        runTasksInPlanOrder(vitest, tasksDir)
      }
      // No working sandbox (and no `sandbox: 'none'`): stop before any run, with the line saying what to install.
      await experimentSandboxVersion(experiment.spec)
      startSessionOnce(vitest)
    },
    async load(id) {
      if (!isTaskModule(id, tasksDir)) return null
      const file = id.split('?')[0]!
      const current = await prepare()
      const { prepared, recorded, versionsByArm } = current
      const taskId = path.basename(path.dirname(file))
      const block = blockOf(experiment, prepared, taskId)
      const payload: TaskModulePayload = {
        experiment: { file: experiment.file, exportName: experiment.exportName, root: experiment.root },
        taskDir: path.dirname(file),
        taskFiles: taskManifest(prepared.manifest.files, path.relative(experiment.root, path.dirname(file))),
        specSha256: prepared.specSha256,
        runs: prepared.plan
          .filter((run) => run.task === taskId)
          .map((run) => {
            const record = recorded.get(runKey(run))
            return { ...run, recorded: record === undefined ? null : { outcome: record.outcome, costUsd: record.costUsd } }
          }),
        recordedVersions: versionsByArm,
        ...recordedTestRunner([...recorded.values()].filter((record) => record.task === taskId)),
        block,
        // A case of a later block may wait for the look before it: as long as that block's runs take, at most.
        caseTimeoutMs: caseTimeoutMs(experiment) * (block === null || block === 1 ? 1 : 1 + prepared.plan.length),
        budget: budgetFor(experiment, current, shard),
      }
      // A literal `test(name, …)` per run: Vitest 5's `vitest list` finds cases by parsing the module, not running it.
      const code = [
        `import { taskRunCases, test } from ${JSON.stringify(DECLARE_MODULE)}`,
        `import * as experimentModule from ${JSON.stringify(experiment.file)}`,
        `const cases = taskRunCases(experimentModule, ${JSON.stringify(payload)})`,
        ...payload.runs.map((run, i) => `test(${JSON.stringify(runLabel(run))}, { timeout: ${payload.caseTimeoutMs} }, cases[${i}])`),
      ].join('\n')
      return { code, moduleType: 'js' }
    },
  }
}

/** A sequential experiment's block of one task (1-based, by the plan's task order), or null for a fixed design. */
function blockOf(experiment: LoadedExperiment, prepared: PreparedExperiment, taskId: string): number | null {
  const design = experiment.spec.decision.sequential
  if (design === undefined) return null
  const order = [...new Set(prepared.plan.map((run) => run.task))]
  return lookBlock(lookTaskCounts(design, order.length), order.indexOf(taskId))
}

interface Sequencer {
  sort(files: TestSpecificationLike[]): Promise<TestSpecificationLike[]>
}
interface TestSpecificationLike {
  readonly moduleId: string
}

/**
 * A sequential experiment's blocks run in the plan's task order (a later
 * block's cases wait for the look before it, so an earlier block must never
 * queue behind them): the task modules of this experiment keep the places
 * Vitest's sequencer gave its files, filled in task order.
 */
function runTasksInPlanOrder(vitest: Vitest, tasksDir: string): void {
  const sequence = vitest.config.sequence as unknown as { sequencer: new (ctx: Vitest) => Sequencer }
  const Base = sequence.sequencer
  sequence.sequencer = class PlanOrderSequencer extends (Base as unknown as new (ctx: Vitest) => Sequencer) {
    override async sort(files: TestSpecificationLike[]): Promise<TestSpecificationLike[]> {
      const sorted = await super.sort(files)
      const mine = sorted.map((file, index) => ({ file, index })).filter(({ file }) => isTaskModule(file.moduleId, tasksDir))
      const inOrder = [...mine].sort((a, b) => (a.file.moduleId < b.file.moduleId ? -1 : a.file.moduleId > b.file.moduleId ? 1 : 0))
      const result = [...sorted]
      mine.forEach(({ index }, i) => {
        result[index] = inOrder[i]!.file
      })
      return result
    }
  } as unknown as new (
    ctx: Vitest,
  ) => Sequencer
}
