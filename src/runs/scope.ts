import { mkdir, mkdtemp, symlink } from 'node:fs/promises'
import path from 'node:path'
import { HarnessFailure } from '../errors.ts'
import type { LoadedExperiment } from '../experiment/load.ts'
import type { OracleToolchain } from '../oracle/toolchain.ts'
import { RunSandbox } from '../sandbox/index.ts'
import type { Task } from '../tasks/task.ts'
import { dependencyMount, placeDependencies, taskDependencies, type PreparedDependencies } from '../workspace/dependencies.ts'
import { buildAgentEnv } from '../workspace/env.ts'
import { createWorkspace, defaultWorkspaceRoot } from '../workspace/index.ts'
import { removeTree } from '../workspace/inside.ts'
import { templateRoot } from '../workspace/template.ts'
import type { Workspace } from '../workspace/workspace.ts'
import { oracleToolchain } from '../oracle/toolchain.ts'
import type { Versions } from './record.ts'
import { experimentSandboxVersion, runReadOnlyMounts } from './sandbox.ts'
import { TaskGuard } from './task-guard.ts'
import { testRunnerVersion } from './test-runner.ts'
import { checkVersions, runVersions, versionsBeforeRun } from './versions.ts'

/**
 * A run's scope: everything one attempt opens before the agent starts (a
 * scratch folder and HOME, the task guard, the workspace, the prepared
 * dependency folder, the agent's environment, the sandbox), held in one
 * object and disposed in the reverse order it was opened, whatever happened.
 * Opening it is also where the run's versions are known, and checked against
 * the recorded ones, before any money is spent.
 */

/** What opening a run's scope needs. */
export interface ScopeRequest {
  readonly experiment: LoadedExperiment
  readonly task: Task
  readonly arm: string
  readonly agentVersion: string
  /** Where workspaces go (default: the system temp folder). */
  readonly workspaceRoot?: string
  /** The task folder's files as the spec manifest locked them. */
  readonly taskFiles?: Readonly<Record<string, string>>
  /** The versions this (task, arm)'s recorded runs were made with; undefined: nothing recorded yet. */
  readonly recordedVersions?: Partial<Versions>
  /** Names the run in messages (`task › arm › seed 1`). */
  readonly label: string
  /** The runs file, as messages name it. */
  readonly runsFile: string
}

/** Cleanups run in the reverse order they were added; every one runs, the first error is rethrown. */
class DisposalStack {
  readonly #cleanups: Array<() => Promise<void>> = []

  defer(cleanup: () => Promise<void>): void {
    this.#cleanups.push(cleanup)
  }

  async dispose(): Promise<void> {
    let first: unknown
    let failed = false
    for (const cleanup of this.#cleanups.splice(0).reverse()) {
      try {
        await cleanup()
      } catch (error) {
        if (!failed) first = error
        failed = true
      }
    }
    if (failed) throw first
  }
}

/** An open run scope. Dispose it with `[Symbol.asyncDispose]()` in a `finally`. */
export interface RunScope extends AsyncDisposable {
  /** Where the run's workspaces go (a clean parent's too). */
  readonly workspaceRoot: string
  /** False when the experiment runs UNSANDBOXED. */
  readonly sandboxed: boolean
  /** The run's scratch folder (HOME and the oracle's scratch live in it). */
  readonly scratch: string
  readonly home: string
  readonly guard: TaskGuard
  readonly workspace: Workspace
  readonly dependencies: PreparedDependencies | null
  /** The agent's whole environment (setup commands get it too). */
  readonly env: Record<string, string>
  /** What the run's processes see read-only besides the system. */
  readonly readOnly: string[]
  /** The run's sandbox; undefined: the experiment runs UNSANDBOXED. */
  readonly sandbox: RunSandbox | undefined
  readonly toolchain: OracleToolchain
  /** The run's versions; `model` is null until the agent has reported one. */
  readonly versions: Versions
}

/**
 * The oracle's toolchain for an experiment's runs, resolved once per process
 * before the first oracle: PATH entries inside the project, the workspace
 * roots and the templates (and any node_modules/.bin) never supply it.
 */
export function experimentToolchain(experiment: LoadedExperiment, workspaceRoot: string = defaultWorkspaceRoot()): Promise<OracleToolchain> {
  return oracleToolchain(process.env.PATH, [...new Set([experiment.root, workspaceRoot, defaultWorkspaceRoot(), templateRoot()])])
}

/**
 * The run's HOME at `home`: where the overlay keeps one on the run's tmpfs (the disk limit), a link to it, so the
 * harness (writing the CLI's settings, reading its session files) and the agent use the same path and the run's
 * writes into HOME count against its limit; otherwise a plain folder.
 */
async function makeHome(home: string, workspace: Workspace): Promise<void> {
  const onTmpfs = workspace.overlay?.home
  if (onTmpfs === undefined) await mkdir(home, { recursive: true })
  else await symlink(onTmpfs.onHost, home)
}

/** Opens a run's scope; on a failure part-way, what was already opened is disposed before the error goes on. */
export async function openRunScope(request: ScopeRequest): Promise<RunScope> {
  const { experiment, task, arm } = request
  const armSpec = experiment.spec.arms[arm]!
  const stack = new DisposalStack()
  try {
    const sandboxVersion = await experimentSandboxVersion(experiment.spec)
    const sandboxed = experiment.spec.sandbox !== 'none'
    const workspaceRoot = request.workspaceRoot ?? defaultWorkspaceRoot()
    const toolchain = await experimentToolchain(experiment, workspaceRoot)
    await mkdir(workspaceRoot, { recursive: true })
    const scratch = await mkdtemp(path.join(workspaceRoot, 'run-'))
    stack.defer(() => removeTree(scratch))
    const home = path.join(scratch, 'home')
    const guard = await TaskGuard.beforeRun(task, experiment.root, request.taskFiles)
    const limits = experiment.spec.sandbox === 'none' ? undefined : experiment.spec.sandbox.limits
    const workspace = await createWorkspace(task, workspaceRoot, { overlay: sandboxed, ...(limits === undefined ? {} : { diskMb: limits.diskMb }) }).catch((error: unknown) => {
      throw error instanceof HarnessFailure ? error : new HarnessFailure('setup', `${task.id}: making the workspace failed: ${String(error)}`, { cause: error })
    })
    stack.defer(() => workspace.dispose())
    await makeHome(home, workspace)
    await guard.watchTemplate(workspace.template)
    // The task's prepared dependency folder: read-only at <workspace>/<mount> for the arm setup and the agent (the oracle mounts its own).
    const dependencies = await taskDependencies(task, { pathVariable: toolchain.path })
    await guard.watchDependencies(dependencies)
    const testRunner = await testRunnerVersion(task, dependencies, toolchain)
    const versions = runVersions(experiment, arm, { agentVersion: request.agentVersion, sandbox: sandboxVersion, toolchain: toolchain.label, testRunner })
    checkVersions(request.recordedVersions, versionsBeforeRun(versions), { run: request.label, runsFile: request.runsFile })
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
    let sandbox: RunSandbox | undefined
    if (experiment.spec.sandbox !== 'none') {
      // Without an overlay (a machine that cannot mount one), the workspace is a plain copy bound in read-write.
      const onTmpfs = workspace.overlay?.home
      const writable = workspace.overlay === undefined ? [home, workspace.agentDir] : onTmpfs === undefined ? [home] : []
      const opened = await RunSandbox.open({
        allow: experiment.spec.sandbox.allow,
        writable,
        ...(onTmpfs === undefined ? {} : { writableMounts: [{ source: onTmpfs.inside, target: home, onHost: onTmpfs.onHost }] }),
        readOnly,
        ...(workspace.overlay === undefined ? {} : { overlay: workspace.overlay }),
        ...(dependencies === null ? {} : { mounts: [dependencyMount(dependencies, workspace.agentDir)] }),
        limits: experiment.spec.sandbox.limits,
      })
      stack.defer(() => opened.close())
      sandbox = opened
    }
    return {
      workspaceRoot,
      sandboxed,
      scratch,
      home,
      guard,
      workspace,
      dependencies,
      env,
      readOnly,
      sandbox,
      toolchain,
      versions,
      [Symbol.asyncDispose]: () => stack.dispose(),
    }
  } catch (error) {
    await stack.dispose().catch(() => undefined)
    throw error
  }
}
