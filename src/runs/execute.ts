import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Agent, AgentRunResult } from '../agents/types.ts'
import { HarnessFailure, ProblemsError, SpecError, type Problem } from '../errors.ts'
import type { ArmSpec } from '../experiment/schema.ts'
import type { LoadedExperiment } from '../experiment/load.ts'
import { judge, touchesGoldFile, type OracleJudgement, type OracleOptions } from '../oracle/index.ts'
import type { Task } from '../tasks/task.ts'
import { harnessVersion } from '../version.ts'
import { buildAgentEnv } from '../workspace/env.ts'
import { createWorkspace, defaultWorkspaceRoot } from '../workspace/index.ts'
import { applyArmSetup } from '../workspace/setup.ts'
import { removeTree } from '../workspace/inside.ts'
import { cachedSkillLibrary, installSkills, resolveArmSkills, skillsDirFor } from '../workspace/skills.ts'
import { artifactsPath, transcriptPath } from './artifacts.ts'
import { checkReportedNumbers } from './plausibility.ts'
import { TaskGuard } from './task-guard.ts'
import { scanForDisarming } from '../oracle/disarming.ts'
import { oracleToolchain, type OracleToolchain } from '../oracle/toolchain.ts'
import { templateRoot } from '../workspace/template.ts'
import { RunSandbox, type LimitName, type SandboxDenials } from '../sandbox/index.ts'
import type { HarnessRetry, RunRecord } from './record.ts'
import { experimentSandboxVersion, runReadOnlyMounts } from './sandbox.ts'
import { dependencyMount, placeDependencies, taskDependencies } from '../workspace/dependencies.ts'
import { testRunnerVersion } from './test-runner.ts'
import { keepUnrecorded } from './unrecorded.ts'

/** Everything one run needs. */
export interface RunContext {
  readonly experiment: LoadedExperiment
  readonly task: Task
  readonly arm: string
  readonly seed: number
  /** Position in the seeded plan. */
  readonly order: number
  readonly specSha256: string
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
   * The test runner this task's recorded runs were judged with
   * (`versions.testRunner`); a run whose runner differs stops before the
   * agent starts. Undefined: nothing recorded yet.
   */
  readonly recordedTestRunner?: string | null
  /** Injected for tests: waits between attempts. */
  readonly sleep?: (ms: number) => Promise<void>
}

/** What one attempt measured, before it becomes a record. */
export interface TrialResult {
  readonly agent: AgentRunResult
  /** `versions.sandbox`: the sandbox the run's processes ran in, or UNSANDBOXED. */
  readonly sandboxVersion: string
  /** The oracle's toolchain (`versions.toolchain`). */
  readonly toolchain: string
  /** The test runner the oracle judged with (`versions.testRunner`). */
  readonly testRunner: string | null
  /** What the sandbox refused (null when UNSANDBOXED). */
  readonly sandbox: SandboxDenials | null
  readonly judgement: OracleJudgement
  readonly changedFiles: string[]
  /** SHA-256 of each skill the workspace held (skill experiments only). */
  readonly skills?: Record<string, string>
  /** Test-disarming patterns found in the agent's change. */
  readonly integrityFlags?: readonly string[]
  /** A failure of the harness after the agent ran that the clean parent does not reproduce: the run is unsolved for it. */
  readonly harnessError?: { readonly reason: string; readonly message: string }
  /** A task file or template written while the oracle ran: the run is measured but kept out of runs.jsonl, and the experiment stops. */
  readonly tampered?: HarnessFailure
  /** The resource limit the run reached, which makes it unsolved (`limit` in the record). */
  readonly limit?: LimitName | null
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

/**
 * One attempt: fresh workspace ▶ arm setup ▶ agent ▶ oracle. Files the run
 * leaves (transcript, oracle output, diff) go to `artifactsDir`.
 */
export async function runTrial(context: RunContext, artifactsDir: string): Promise<TrialResult> {
  const { experiment, task, arm } = context
  const armSpec: ArmSpec = experiment.spec.arms[arm]!
  const sandboxVersion = await experimentSandboxVersion(experiment.spec)
  const sandboxed = experiment.spec.sandbox !== 'none'
  const workspaceRoot = context.workspaceRoot ?? defaultWorkspaceRoot()
  const toolchain = await experimentToolchain(experiment, workspaceRoot)
  await mkdir(workspaceRoot, { recursive: true })
  const scratch = await mkdtemp(path.join(workspaceRoot, 'run-'))
  const home = path.join(scratch, 'home')
  await mkdir(home, { recursive: true })
  await mkdir(artifactsDir, { recursive: true })
  const guard = await TaskGuard.beforeRun(task, experiment.root, context.taskFiles)
  const limits = experiment.spec.sandbox === 'none' ? undefined : experiment.spec.sandbox.limits
  const workspace = await createWorkspace(task, workspaceRoot, { overlay: sandboxed, ...(limits === undefined ? {} : { diskMb: limits.diskMb }) }).catch((error: unknown) => {
    throw error instanceof HarnessFailure ? error : new HarnessFailure('setup', `${task.id}: making the workspace failed: ${String(error)}`, { cause: error })
  })
  let sandbox: RunSandbox | undefined
  try {
    await guard.watchTemplate(workspace.template)
    // The task's prepared dependency folder: read-only at <workspace>/<mount> for the arm setup and the agent (the oracle mounts its own).
    const dependencies = await taskDependencies(task, { pathVariable: toolchain.path })
    await guard.watchDependencies(dependencies)
    const testRunner = await testRunnerVersion(task, dependencies, toolchain)
    if (context.recordedTestRunner !== undefined && context.recordedTestRunner !== testRunner) {
      throw new SpecError(
        `${task.id}: its recorded runs were judged with test runner ${context.recordedTestRunner ?? 'none'}, but this run would use ${testRunner ?? 'none'}. ` +
          'A resume never mixes versions: restore the recorded runner, or start a new experiment.',
      )
    }
    if (dependencies !== null) await placeDependencies(dependencies, workspace.dir, sandboxed ? 'mount-point' : 'link')
    const armPath = armSpec.setup.path.map((dir) => path.resolve(experiment.dir, dir))
    const env = buildAgentEnv({
      host: process.env,
      pass: experiment.spec.env.pass,
      set: experiment.spec.env.set,
      armEnv: armSpec.setup.env,
      armPath,
      cleanPath: experiment.spec.cleanPath,
      home,
    })
    const readOnly = runReadOnlyMounts(env.PATH, { projectRoot: experiment.root, workspaceRoot }, armPath)
    if (experiment.spec.sandbox !== 'none') {
      // Without an overlay (a machine that cannot mount one), the workspace is a plain copy bound in read-write.
      const writable = workspace.overlay === undefined ? [home, workspace.agentDir] : [home]
      sandbox = await RunSandbox.open({
        allow: experiment.spec.sandbox.allow,
        writable,
        readOnly,
        ...(workspace.overlay === undefined ? {} : { overlay: workspace.overlay }),
        ...(dependencies === null ? {} : { mounts: [dependencyMount(dependencies, workspace.agentDir)] }),
        limits: experiment.spec.sandbox.limits,
      })
    }
    const skills = await installConditionSkills(context, workspace.dir)
    await applyArmSetup(arm, armSpec.setup, {
      workspace: workspace.dir,
      agentWorkspace: workspace.agentDir,
      experimentDir: experiment.dir,
      env,
      timeoutMs: experiment.spec.timeoutSeconds * 1000,
      ...(sandbox === undefined ? {} : { sandbox }),
    })
    await workspace.snapshot()
    const agentStarted = performance.now()
    const agentResult = await context.agent
      .run({
      task,
      workspace: workspace.agentDir,
      workspaceOnHost: workspace.dir,
      ...(sandbox === undefined ? {} : { sandbox }),
      prompt: task.prompt,
      env,
      budgetUsd: experiment.spec.budgetUsd,
      timeoutMs: experiment.spec.timeoutSeconds * 1000,
      transcriptPath: path.join(artifactsDir, 'transcript.jsonl'),
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
    const limit = sandbox?.limitHit() ?? null
    checkReportedNumbers(agentResult, experiment.spec.budgetUsd, `${task.id} › ${arm} › seed ${context.seed}: the agent`)
    const denials = sandbox?.denials ?? null
    if (denials !== null && denials.examples.length > 0) await writeFile(path.join(artifactsDir, 'sandbox-denials.txt'), `${denials.examples.join('\n')}\n`)
    if (limit === null) checkManipulation(arm, armSpec.hooks, agentResult)
    const oracleOptions = (scratchDir: string): OracleOptions => ({
      timeoutMs: experiment.spec.oracleTimeoutSeconds * 1000,
      scratchDir,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
      ...(sandbox === undefined ? {} : { sandbox: { readOnly: [...readOnly, ...Object.values(toolchain.binaries).map((file) => path.dirname(file))] } }),
      toolchain,
    })
    let measured: Pick<TrialResult, 'judgement' | 'changedFiles' | 'integrityFlags' | 'harnessError'>
    try {
      const changedFiles = await workspace.changedFiles()
      const integrityFlags = await scanForDisarming(workspace.dir, changedFiles)
      await writeFile(path.join(artifactsDir, 'diff.patch'), await workspace.diff())
      await guard.beforeOracle()
      const judgement = await judge(task, workspace, oracleOptions(scratch))
      measured = { judgement, changedFiles, integrityFlags }
    } catch (error) {
      if (!measuresTheAgent(error, context.signal)) throw error
      measured = await judgedOnCleanParent(context, error, workspaceRoot, sandboxed, oracleOptions(path.join(scratch, 'clean-parent')))
    }
    let tampered: HarnessFailure | undefined
    await guard.afterOracle().catch((error: unknown) => {
      if (!(error instanceof HarnessFailure) || error.reason !== 'tampered') throw error
      tampered = error
    })
    await writeFile(path.join(artifactsDir, 'oracle.stdout.txt'), measured.judgement.stdout)
    await writeFile(path.join(artifactsDir, 'oracle.stderr.txt'), measured.judgement.stderr)
    return {
      agent: agentResult,
      sandboxVersion,
      toolchain: toolchain.label,
      testRunner,
      sandbox: denials,
      ...measured,
      limit,
      ...(skills === undefined ? {} : { skills }),
      ...(tampered === undefined ? {} : { tampered }),
    }
  } finally {
    await sandbox?.close()
    await workspace.dispose()
    await removeTree(scratch)
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
  context.log?.(`${task.id} › ${context.arm} › seed ${context.seed}: the harness failed on what the agent left (${reason}: ${message.split('\n')[0]}); the clean parent judges: counted as unsolved`)
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
 * The oracle's toolchain for an experiment's runs, resolved once per process
 * before the first oracle: PATH entries inside the project, the workspace
 * roots and the templates (and any node_modules/.bin) never supply it.
 */
export function experimentToolchain(experiment: LoadedExperiment, workspaceRoot: string = defaultWorkspaceRoot()): Promise<OracleToolchain> {
  return oracleToolchain(process.env.PATH, [...new Set([experiment.root, workspaceRoot, defaultWorkspaceRoot(), templateRoot()])])
}

/** The manipulation check: a run of an arm with hooks in which none of them fired measured nothing. */
function checkManipulation(arm: string, hooks: readonly string[], result: AgentRunResult): void {
  if (hooks.length === 0 || result.stop === 'timeout') return
  if (result.hooksFired === null) {
    throw new HarnessFailure('manipulation-check', `arm ${arm} expects hooks (${hooks.join(', ')}) but this agent cannot report hook activity`, { retryable: false })
  }
  const fired = hooks.reduce((sum, hook) => sum + (result.hooksFired?.[hook] ?? 0), 0)
  if (fired === 0) {
    throw new HarnessFailure('manipulation-check', `arm ${arm}: none of its hooks (${hooks.join(', ')}) fired in the session: the run did not test the treatment`)
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

/** Builds the record of a measured trial. A timeout is unsolved at the budget cap; so is a run past a resource limit. */
export function buildRecord(context: RunContext, trial: TrialResult, retries: HarnessRetry[], startedAt: Date, finishedAt: Date): RunRecord {
  const { experiment, task, arm, seed } = context
  const armSpec = experiment.spec.arms[arm]!
  const timedOut = trial.agent.stop === 'timeout'
  const limit = trial.limit ?? null
  const solved = !timedOut && limit === null && trial.judgement.solved
  const fired = trial.agent.hooksFired
  const transcript = trial.agent.transcriptSha256 === null ? null : transcriptPath({ task: task.id, arm, seed })
  return {
    experiment: experiment.spec.name,
    specSha256: context.specSha256,
    task: task.id,
    arm,
    seed,
    order: context.order,
    outcome: timedOut ? 'timeout' : solved ? 'solved' : 'unsolved',
    solved,
    costUsd: timedOut ? experiment.spec.budgetUsd : trial.agent.costUsd,
    costSource: timedOut ? 'budget-cap' : trial.agent.costSource,
    tokens: trial.agent.tokens,
    metered: trial.agent.metered ?? null,
    turns: trial.agent.turns,
    toolCalls: trial.agent.toolCalls,
    toolCallsBeforeFirstEdit: trial.agent.toolCallsBeforeFirstEdit,
    wallMs: Math.round(trial.agent.wallMs),
    changedFiles: trial.changedFiles,
    goldFileTouched: touchesGoldFile(task, trial.changedFiles),
    oracle: trial.judgement.oracle,
    manipulation:
      armSpec.hooks.length === 0 ? null : { hookPromptsRecorded: fired?.UserPromptSubmit ?? 0, hookEditsRecorded: fired?.PostToolUse ?? 0 },
    versions: {
      harness: harnessVersion,
      agent: context.agentVersion,
      // Metered: the spec's model, else the one the provider named most; never what the session wrote.
      model: recordedModel(trial.agent, armAgentSpec(experiment, arm).model),
      tool: armSpec.tool === undefined ? null : `${armSpec.tool.name}@${armSpec.tool.version}`,
      node: process.version,
      sandbox: trial.sandboxVersion,
      toolchain: trial.toolchain,
      testRunner: trial.testRunner,
    },
    sandbox: trial.sandbox === null ? null : { denied: trial.sandbox.denied, examples: trial.sandbox.examples.slice(0, 5) },
    limit,
    transcript,
    transcriptSha256: trial.agent.transcriptSha256,
    harnessRetries: retries,
    integrityFlags: [...(trial.integrityFlags ?? []), ...(trial.judgement.integrityFlags ?? [])],
    harnessError: trial.harnessError ?? null,
    ...(trial.skills === undefined ? {} : { skills: trial.skills }),
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
  }
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
      return record
    } catch (error) {
      if (!(error instanceof HarnessFailure)) throw error
      retries.push({ attempt, reason: error.reason, message: error.message })
      const failedDir = path.join(artifactsDir, `failed-attempt-${attempt}`)
      await mkdir(failedDir, { recursive: true })
      await writeFile(path.join(failedDir, 'reason.txt'), `${error.reason}: ${error.message}\n`)
      await rename(path.join(artifactsDir, 'transcript.jsonl'), path.join(failedDir, 'transcript.jsonl')).catch(() => undefined)
      const last = attempt === attempts || !error.retryable
      context.log?.(`${context.task.id} › ${context.arm} › seed ${context.seed}: harness failure (${error.reason}) on attempt ${attempt}/${attempts}${last ? '' : ', retrying'}: ${error.message}`)
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
