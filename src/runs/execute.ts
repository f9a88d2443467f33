import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Agent, AgentRunResult } from '../agents/types.ts'
import type { LimitName } from '../sandbox/index.ts'
import { HarnessFailure, ProblemsError, SpecError, type Problem } from '../errors.ts'
import type { LoadedExperiment } from '../experiment/load.ts'
import { judge, mountOracleCopy, touchesGoldFile, type OracleJudgement, type OracleOptions, type OracleStage } from '../oracle/index.ts'
import { scanForDisarming } from '../oracle/disarming/index.ts'
import { createWorkspace } from '../workspace/index.ts'
import { applyArmSetup } from '../workspace/setup.ts'
import { cachedSkillLibrary, installSkills, resolveArmSkills, skillsDirFor } from '../workspace/skills.ts'
import { ARTIFACT_FILES, artifactsPath, failedAttemptFolder } from './artifacts.ts'
import { checkReportedNumbers } from './plausibility.ts'
import { buildRecord, type HarnessRetry, type RunIdentity, type RunRecord, type TrialResult, type Versions } from './record.ts'
import { openRunScope, type RunScope } from './scope.ts'
import { runsFilePath } from './store.ts'
import { keepTamperedSession, keepUnrecorded } from './unrecorded.ts'
import { checkVersions, recordedModelName } from './versions.ts'
import { runLabel } from '../shared/run-label.ts'

/**
 * One run in named stages: open the run's scope (workspace, dependencies,
 * environment, sandbox; the versions checked before any money is spent),
 * prepare the arm, run the agent, judge, build the record. Attempts are
 * retried with backoff when the harness failed (`executeRun`).
 */

/** Everything one run needs. */
export interface RunContext extends RunIdentity {
  readonly agent: Agent
  /** The agent's version, probed once before the runs. */
  readonly agentVersion: string
  /** Called with progress lines (attempts, retries). */
  readonly log?: (line: string) => void
  readonly signal?: AbortSignal
  /** Where workspaces go (default: the system temp folder). */
  readonly workspaceRoot?: string
  /** The task folder's files as the spec manifest locked them (SHA-256 by path relative to the project root); default: as they are when the run starts. */
  readonly taskFiles?: Readonly<Record<string, string>>
  /**
   * The versions this run's recorded runs were made with (`recordedVersionsFor`):
   * a run whose versions differ stops before the agent starts (the model,
   * which only the agent reports, once it has ended: the run is then not
   * recorded). Undefined: nothing recorded yet.
   */
  readonly recordedVersions?: Partial<Versions>
  /** Injected for tests: waits between attempts. */
  readonly sleep?: (ms: number) => Promise<void>
  /** Told how long each stage of an attempt took (the run benchmark's split of a run); nothing is recorded from it. */
  readonly onStage?: (stage: RunStage, ms: number) => void
}

/**
 * The stages of one attempt as `onStage` names them: `judging` holds the
 * oracle's own `oracle preparation` and `test command` (`OracleStage`).
 */
export type RunStage = 'workspace' | 'setup' | 'agent' | 'judging' | 'dispose' | OracleStage

export type { TrialResult } from './record.ts'

/** `task › arm › seed N`, as messages name a run (`runLabel`). */
function contextLabel(context: Pick<RunContext, 'task' | 'arm' | 'seed'>): string {
  return runLabel({ task: context.task.id, arm: context.arm, seed: context.seed })
}

/** The runs file as messages name it (relative to the project root). */
function runsFileLabel(experiment: LoadedExperiment): string {
  return path.relative(experiment.root, runsFilePath(experiment.outDir))
}

/** Puts a skill experiment's condition skills into the workspace; returns their hashes (undefined outside skill experiments). */
async function installConditionSkills(context: RunContext, workspace: string): Promise<Record<string, string> | undefined> {
  const { experiment, task, arm } = context
  const skillsSpec = experiment.spec.skills
  if (skillsSpec === undefined) return undefined
  const library = await cachedSkillLibrary(path.resolve(experiment.dir, skillsSpec.library))
  const problems: Problem[] = []
  const names = resolveArmSkills(arm, experiment.spec.arms[arm]!, task, skillsSpec, library, experiment.file, problems)
  if (problems.length > 0) throw new ProblemsError(`${task.id} › ${arm}: the condition's skills cannot be installed:`, problems)
  return installSkills(workspace, skillsDirFor(armAgentSpec(experiment, arm).kind, skillsSpec), names, library)
}

export { artifactsPath } from './artifacts.ts'

/** The arm's spec with the experiment's agent merged in. */
export function armAgentSpec(experiment: LoadedExperiment, arm: string) {
  const armSpec = experiment.spec.arms[arm]!
  return { ...experiment.spec.agent, ...stripUndefined(armSpec.agent) }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as Partial<T>
}

/** Stage 2: the arm's condition skills and setup in the fresh workspace, then the snapshot the agent's changes are read against. */
async function prepareArm(context: RunContext, scope: RunScope): Promise<Record<string, string> | undefined> {
  const { experiment, arm } = context
  const skills = await installConditionSkills(context, scope.workspace.dir)
  await applyArmSetup(arm, experiment.spec.arms[arm]!.setup, {
    workspace: scope.workspace.dir,
    agentWorkspace: scope.workspace.agentDir,
    experimentDir: experiment.dir,
    env: scope.env,
    timeoutMs: experiment.spec.timeoutSeconds * 1000,
    ...(scope.sandbox === undefined ? {} : { sandbox: scope.sandbox }),
  })
  await scope.workspace.snapshot()
  return skills
}

/** What the agent's stage measured: the session, and the resource limit it reached (null: none). */
interface AgentStage {
  readonly agent: AgentRunResult
  readonly limit: LimitName | null
}

/**
 * Stage 3: the agent's session (a session a resource limit broke measured
 * that: unsolved at the budget cap), its numbers checked, what the sandbox
 * refused written down, the manipulation check.
 */
async function runAgent(context: RunContext, scope: RunScope, artifactsDir: string): Promise<AgentStage> {
  const { experiment, task, arm } = context
  const armSpec = experiment.spec.arms[arm]!
  const sandbox = scope.sandbox
  const agentStarted = performance.now()
  const agentResult: AgentRunResult = await context.agent
    .run({
      task,
      workspace: scope.workspace.agentDir,
      workspaceOnHost: scope.workspace.dir,
      ...(sandbox === undefined ? {} : { sandbox }),
      prompt: task.prompt,
      env: scope.env,
      budgetUsd: experiment.spec.budgetUsd,
      timeoutMs: experiment.spec.timeoutSeconds * 1000,
      transcriptPath: path.join(artifactsDir, ARTIFACT_FILES.transcript),
      expectedHooks: armSpec.hooks,
      ...(armSpec.skills === undefined ? {} : { settingSources: armSpec.skills.settingSources }),
      arm,
      seed: context.seed,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    })
    .catch((error: unknown) => {
      // A session that broke on a resource limit measured that: unsolved, at the budget cap (its spend is unknown).
      if (!(error instanceof HarnessFailure) || sandbox?.limitHit() == null) throw error
      return limitedSession(experiment.spec.budgetUsd, performance.now() - agentStarted)
    })
  context.onStage?.('agent', performance.now() - agentStarted)
  const limit = sandbox?.limitHit() ?? null
  checkReportedNumbers(agentResult, experiment.spec.budgetUsd, `${contextLabel(context)}: the agent`)
  const denials = sandbox?.denials ?? null
  if (denials !== null && denials.examples.length > 0) await writeFile(path.join(artifactsDir, ARTIFACT_FILES.sandboxDenials), `${denials.examples.join('\n')}\n`)
  if (limit === null) checkManipulation(arm, armSpec.hooks, agentResult)
  return { agent: agentResult, limit }
}

/** What a session that a resource limit broke measured: nothing of its own, so the budget cap (like a timeout). */
function limitedSession(budgetUsd: number, wallMs: number): AgentRunResult {
  return {
    stop: 'completed',
    costUsd: budgetUsd,
    costSource: 'budget-cap',
    tokens: null,
    turns: null,
    toolCalls: null,
    toolCallsBeforeFirstEdit: null,
    wallMs,
    model: null,
    transcriptSha256: null,
    hooksFired: null,
  }
}

/** What judging found. */
type Judged = Pick<TrialResult, 'judgement' | 'changedFiles' | 'integrityFlags' | 'harnessError' | 'tampered'>

/**
 * Stage 4: the agent's change read and written down, the task guard's look
 * before the oracle (the task files), the oracle, and the guard's look after
 * it (the task files, the template's and the dependency folder's seals). A
 * failure after the agent ran that may be the agent's doing is decided on the
 * clean parent (`judgedOnCleanParent`); a task file or template written
 * during the run is `tampered` (the run is measured, kept out of runs.jsonl).
 */
async function judgeRun(context: RunContext, scope: RunScope, artifactsDir: string): Promise<Judged> {
  const { experiment, task } = context
  const oracleOptions = (scratchDir: string): OracleOptions => ({
    timeoutMs: experiment.spec.oracleTimeoutSeconds * 1000,
    scratchDir,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(scope.sandbox === undefined || experiment.spec.sandbox === 'none'
      ? {}
      : { sandbox: { readOnly: [...scope.readOnly, ...scope.toolchain.mounts], diskMb: experiment.spec.sandbox.limits.diskMb } }),
    toolchain: scope.toolchain,
    ...(context.onStage === undefined ? {} : { onStage: context.onStage }),
    // The guard looks after the oracle whatever happens in it (afterOracle below): the oracle need not walk the template's seal.
    ...(scope.guard.watchedTemplate === undefined ? {} : { watchedTemplate: scope.guard.watchedTemplate }),
  })
  const options = oracleOptions(scope.scratch)
  // The oracle's overlay (the template below, nothing above yet) is mounted while the agent's change is read and
  // written down; the oracle lays that change and the fix's tests in it. Disposed here, beside the guard's last look.
  const mounting = mountOracleCopy(task, options)
  mounting?.catch(() => undefined)
  let disposing: Promise<void> | undefined
  const disposeMounted = () =>
    (disposing ??=
      mounting?.then(
        (copy) => copy.dispose(),
        () => undefined,
      ) ?? Promise.resolve())
  let measured: Pick<TrialResult, 'judgement' | 'changedFiles' | 'integrityFlags' | 'harnessError'>
  try {
    // One read of the agent's changes: the scan, the diff and the oracle all take these.
    const changes = await scope.workspace.readChanges()
    const changedFiles = [...changes.files]
    // Each of these reads before the oracle's tests run (without a sandbox the code under test could rewrite the
    // workspace, or write a task file, and a look meanwhile would take that for the agent's or call it earlier).
    const integrityFlags = await scanForDisarming(scope.workspace.dir, changedFiles, {
      toolchain: scope.toolchain,
      sandboxed: scope.sandbox !== undefined,
      timeoutMs: experiment.spec.oracleTimeoutSeconds * 1000,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    })
    await writeFile(path.join(artifactsDir, ARTIFACT_FILES.diff), await changes.diff())
    await scope.guard.beforeOracle()
    const judgement = await judge(task, scope.workspace, { ...options, changedFiles, ...(mounting === undefined ? {} : { mountedCopy: mounting }) })
    measured = { judgement, changedFiles, integrityFlags }
  } catch (error) {
    await disposeMounted().catch(() => undefined)
    if (!measuresTheAgent(error, context.signal)) throw error
    measured = await judgedOnCleanParent(context, error, scope.workspaceRoot, scope.sandboxed, oracleOptions(path.join(scope.scratch, 'clean-parent')))
  }
  let tampered: HarnessFailure | undefined
  const [disposed, looked] = await Promise.allSettled([
    disposeMounted(),
    scope.guard.afterOracle().catch((error: unknown) => {
      if (!(error instanceof HarnessFailure) || error.reason !== 'tampered') throw error
      tampered = error
    }),
  ])
  if (looked.status === 'rejected') throw looked.reason
  if (disposed.status === 'rejected') throw disposed.reason
  await writeFile(path.join(artifactsDir, ARTIFACT_FILES.oracleStdout), measured.judgement.stdout)
  await writeFile(path.join(artifactsDir, ARTIFACT_FILES.oracleStderr), measured.judgement.stderr)
  return { ...measured, ...(tampered === undefined ? {} : { tampered }) }
}

/**
 * One attempt, stage by stage: open the run's scope ▶ prepare the arm ▶ run
 * the agent ▶ judge; the scope is disposed whatever happened. Files the run
 * leaves (transcript, oracle output, diff) go to `artifactsDir`.
 */
export async function runTrial(context: RunContext, artifactsDir: string): Promise<TrialResult> {
  const { experiment, task, arm } = context
  await mkdir(artifactsDir, { recursive: true })
  const timed = async <T>(stage: RunStage, work: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await work()
    } finally {
      context.onStage?.(stage, performance.now() - started)
    }
  }
  const scope = await timed('workspace', () =>
    openRunScope({
      experiment,
      task,
      arm,
      agentVersion: context.agentVersion,
      label: contextLabel(context),
      runsFile: runsFileLabel(experiment),
      ...(context.workspaceRoot === undefined ? {} : { workspaceRoot: context.workspaceRoot }),
      ...(context.taskFiles === undefined ? {} : { taskFiles: context.taskFiles }),
      ...(context.recordedVersions === undefined ? {} : { recordedVersions: context.recordedVersions }),
    }),
  )
  try {
    const skills = await timed('setup', () => prepareArm(context, scope))
    const agentStarted = new Date()
    const { agent, limit } = await runAgent(context, scope, artifactsDir).catch(async (error: unknown) => {
      if (!(error instanceof HarnessFailure) || error.reason !== 'tampered') throw error
      // A forged report is not a measurement, but what the agent changed is kept with what the harness measured.
      await writeFile(path.join(artifactsDir, ARTIFACT_FILES.diff), await scope.workspace.diff()).catch(() => undefined)
      throw keptTamperedSession(context, error, artifactsDir, agentStarted)
    })
    const judged = await timed('judging', () => judgeRun(context, scope, artifactsDir))
    return {
      agent,
      // Metered: the spec's model, else the one the provider named most; never what the session wrote.
      // Against the scripted model server the model is named `scripted:…` everywhere a record is read.
      versions: { ...scope.versions, model: recordedModelName(recordedModel(agent, armAgentSpec(experiment, arm).model), armAgentSpec(experiment, arm).options) },
      sandbox: scope.sandbox?.denials ?? null,
      goldFileTouched: touchesGoldFile(task, judged.changedFiles),
      ...judged,
      // The agent's limit, else one the oracle's tests reached (code the agent wrote filling the oracle's disk).
      limit: limit ?? judged.judgement.limit ?? null,
      ...(skills === undefined ? {} : { skills }),
    }
  } finally {
    await timed('dispose', async () => scope[Symbol.asyncDispose]())
  }
}

/**
 * Whether a failure after the agent ran may be the agent's doing (then the
 * clean parent decides): anything but a cancellation, a stop for tampering,
 * or a mistake in the spec.
 */
function measuresTheAgent(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return false
  if (error instanceof SpecError || error instanceof ProblemsError) return false
  return !(error instanceof HarnessFailure && error.reason === 'tampered')
}

/**
 * The harness failed after the agent ran (reading its changes, the diff, the
 * oracle's copy, the oracle): the same task is judged on its clean parent, a
 * fresh workspace nobody touched. If that fails too, the failure is the
 * harness's (rethrown: retried, never recorded); if it judges, what the agent
 * left made the harness fail, and that is the run's outcome: unsolved, the
 * failure in the record (`harnessError`). An agent can never choose not to be recorded.
 */
async function judgedOnCleanParent(
  context: RunContext,
  error: unknown,
  workspaceRoot: string,
  sandboxed: boolean,
  options: OracleOptions,
): Promise<Pick<TrialResult, 'judgement' | 'changedFiles' | 'integrityFlags' | 'harnessError'>> {
  const { task } = context
  const reason = error instanceof HarnessFailure ? error.reason : 'crash'
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000)
  const clean = await createWorkspace(task, workspaceRoot, { overlay: sandboxed })
  let judgement: OracleJudgement
  try {
    await mkdir(options.scratchDir, { recursive: true })
    judgement = await judge(task, clean, options)
  } catch {
    throw error
  } finally {
    await clean.dispose()
  }
  context.log?.(`${contextLabel(context)}: the harness failed on what the agent left (${reason}: ${message.split('\n')[0]}); the clean parent judges: counted as unsolved`)
  // Every listed test failing (git-fix), or the clean parent's own verify.sh exit (folder): the outcome the run gets.
  const oracle =
    task.kind === 'git-fix'
      ? {
          failToPass: { passed: 0, total: task.metadata.FAIL_TO_PASS.length },
          passToPass: { passed: 0, total: task.metadata.PASS_TO_PASS.length },
          failing: [...task.metadata.FAIL_TO_PASS, ...task.metadata.PASS_TO_PASS],
        }
      : judgement.oracle
  return {
    judgement: {
      solved: false,
      oracle,
      stdout: '',
      stderr: `[task-outcome oracle] the harness failed on what the agent left (${reason}): ${message}\n[task-outcome oracle] on the clean parent the oracle judges, so this is the run's outcome: unsolved\n${judgement.stderr}`,
    },
    changedFiles: [],
    integrityFlags: [],
    harnessError: { reason, message },
  }
}

/**
 * `versions.model`: for a metered run the spec's model, else the model the
 * provider named in most responses (a usage file in the session's HOME can be
 * rewritten; the gateway's count cannot); unmetered, the agent's own report.
 */
function recordedModel(agent: AgentRunResult, specModel: string | undefined): string | null {
  if (agent.metered !== undefined && agent.metered !== null) return specModel ?? agent.metered.models[0] ?? agent.model ?? null
  return agent.model ?? specModel ?? null
}

/**
 * The manipulation check: a run of an arm with hooks in which none of them fired measured nothing. Fired means
 * started as the harness counted it where it wrapped the hooks (what the session prints cannot add to that count),
 * else as the agent reports it.
 */
function checkManipulation(arm: string, hooks: readonly string[], result: AgentRunResult): void {
  if (hooks.length === 0 || result.stop === 'timeout') return
  const counts = result.hookStarts?.byEvent ?? result.hooksFired
  if (counts === null) {
    throw new HarnessFailure('manipulation-check', `arm ${arm} expects hooks (${hooks.join(', ')}) but this agent cannot report hook activity`, { retryable: false })
  }
  const fired = hooks.reduce((sum, hook) => sum + (counts[hook] ?? 0), 0)
  if (fired === 0) {
    throw new HarnessFailure('manipulation-check', `arm ${arm}: none of its hooks (${hooks.join(', ')}) fired in the session: the run did not test the treatment`)
  }
}

export { buildRecord } from './record.ts'

/**
 * A session that failed as `tampered` before it was judged (its own report
 * forged) is kept in `unrecorded/` with what the harness measured of it and
 * its artifacts; the failure returned says where.
 */
function keptTamperedSession(context: RunContext, failure: HarnessFailure, artifactsDir: string, startedAt: Date): HarnessFailure {
  const run = { experiment: context.experiment.spec.name, specSha256: context.specSha256, task: context.task.id, arm: context.arm, seed: context.seed, order: context.order }
  const kept = keepTamperedSession(context.experiment.outDir, run, failure, artifactsDir, { startedAt, finishedAt: new Date() })
  return new HarnessFailure('tampered', `${failure.message} What the session left is kept in ${kept}.`, {
    retryable: false,
    cause: failure,
    ...(failure.measured === undefined ? {} : { measured: failure.measured }),
  })
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Makes one run and returns its record. Harness failures are retried (bounded,
 * doubling backoff), each attempt's reason kept in `harnessRetries`; an
 * unsolved run is never retried. When every attempt failed, or a failure
 * cannot be helped by retrying, throws a `HarnessFailure` naming each reason;
 * nothing is recorded for it.
 */
export async function executeRun(context: RunContext): Promise<RunRecord> {
  const { attempts, backoffSeconds } = context.experiment.spec.retries
  const sleep = context.sleep ?? defaultSleep
  const runPath = artifactsPath({ task: context.task.id, arm: context.arm, seed: context.seed })
  const artifactsDir = path.join(context.experiment.outDir, runPath)
  await rm(artifactsDir, { recursive: true, force: true })
  const retries: HarnessRetry[] = []
  const startedAt = new Date()
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const trial = await runTrial(context, artifactsDir)
      const record = buildRecord(context, trial, retries, startedAt, new Date())
      if (trial.tampered !== undefined) {
        const kept = keepUnrecorded(context.experiment.outDir, record)
        throw new HarnessFailure('tampered', `${trial.tampered.message} The measured run is kept in ${kept}.`, { retryable: false, cause: trial.tampered })
      }
      // The model is known only once the agent has reported it: a run with another model than the recorded ones is not recorded.
      checkVersions(context.recordedVersions, { model: record.versions.model }, { run: contextLabel(context), runsFile: runsFileLabel(context.experiment), afterRun: true })
      return record
    } catch (error) {
      if (!(error instanceof HarnessFailure)) throw error
      retries.push({ attempt, reason: error.reason, message: error.message })
      const failedDir = path.join(artifactsDir, failedAttemptFolder(attempt))
      await mkdir(failedDir, { recursive: true })
      await writeFile(path.join(failedDir, ARTIFACT_FILES.failureReason), `${error.reason}: ${error.message}\n`)
      await rename(path.join(artifactsDir, ARTIFACT_FILES.transcript), path.join(failedDir, ARTIFACT_FILES.transcript)).catch(() => undefined)
      const last = attempt === attempts || !error.retryable
      context.log?.(`${contextLabel(context)}: harness failure (${error.reason}) on attempt ${attempt}/${attempts}${last ? '' : ', retrying'}: ${error.message}`)
      if (last) {
        const summary = retries.map((retry) => `attempt ${retry.attempt}: ${retry.reason}: ${retry.message}`).join('\n')
        throw new HarnessFailure(error.reason, `no measurement after ${attempt} attempt(s); nothing recorded.\n${summary}`, {
          retryable: false,
          cause: error,
        })
      }
      await sleep(backoffSeconds * 1000 * 2 ** (attempt - 1))
    }
  }
  throw new Error('unreachable: the attempt loop always returns or throws')
}
