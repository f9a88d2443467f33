import path from 'node:path'
import { test } from 'vitest'
import { createAgent } from '../agents/index.ts'
import type { Agent } from '../agents/types.ts'
import { SpecError } from '../errors.ts'
import { canonicalJson } from '../experiment/hash.ts'
import { resolveExperiment, type LoadedExperiment } from '../experiment/load.ts'
import { armAgentSpec, executeRun, experimentToolchain } from '../runs/execute.ts'
import { experimentSandboxVersion } from '../runs/sandbox.ts'
import { caseName } from '../runs/plan.ts'
import { runSummary } from '../runs/summary.ts'
import type { Versions } from '../runs/record.ts'
import { runsFilePath } from '../runs/store.ts'
import { loadTask } from '../tasks/load.ts'
import type { Task } from '../tasks/task.ts'
import { harnessVersion } from '../version.ts'
import { ALREADY_RECORDED, setRun } from './meta.ts'
import type { TaskModulePayload } from './payload.ts'

/** Refuses to run an arm whose versions differ from those already recorded for it. */
function checkVersions(arm: string, recorded: Versions | undefined, current: Omit<Versions, 'model'>, runsFile: string): void {
  if (recorded === undefined) return
  const { model: _model, ...was } = recorded
  if (canonicalJson(was) === canonicalJson(current)) return
  const changed = (Object.keys(current) as Array<keyof typeof current>)
    .filter((key) => was[key] !== current[key])
    .map((key) => `${key} ${was[key]} → ${current[key]}`)
  throw new SpecError(
    `arm ${arm}: ${runsFile} holds runs made with other versions (${changed.join(', ')}). ` +
      `A resume never mixes versions: pin the recorded versions again, or start a new experiment.`,
  )
}

/**
 * Declares a task's runs as Vitest cases, in their seeded order. Runs in a
 * Vitest worker: the generated test module of a task folder calls it.
 */
export function declareTaskRuns(experimentModule: Record<string, unknown>, payload: TaskModulePayload): void {
  const experiment: LoadedExperiment = resolveExperiment(experimentModule, payload.experiment)
  const runsFile = path.relative(experiment.root, runsFilePath(experiment.outDir))
  let task: Promise<Task> | undefined
  const agents = new Map<string, Promise<{ agent: Agent; version: string }>>()

  const agentFor = (arm: string, env: Record<string, string>) => {
    let entry = agents.get(arm)
    if (entry === undefined) {
      entry = (async () => {
        const armSpec = experiment.spec.arms[arm]!
        const agent = createAgent(armAgentSpec(experiment, arm), { experimentDir: experiment.dir, root: experiment.root })
        const version = await agent.version(env)
        checkVersions(
          arm,
          payload.recordedVersions[arm],
          {
            harness: harnessVersion,
            agent: version,
            tool: armSpec.tool === undefined ? null : `${armSpec.tool.name}@${armSpec.tool.version}`,
            node: process.version,
            sandbox: await experimentSandboxVersion(experiment.spec),
            toolchain: (await experimentToolchain(experiment)).label,
          },
          runsFile,
        )
        return { agent, version }
      })()
      agents.set(arm, entry)
    }
    return entry
  }

  for (const run of payload.runs) {
    test(caseName(run), { timeout: payload.caseTimeoutMs }, async (context) => {
      if (run.recorded !== null) {
        context.skip(`${ALREADY_RECORDED} ${runsFile} (${run.recorded.outcome}, $${run.recorded.costUsd.toFixed(4)}): not run again`)
      }
      const loadedTask = await (task ??= loadTask(payload.taskDir, experiment.root))
      const { agent, version } = await agentFor(run.arm, { PATH: process.env.PATH ?? '' })
      const record = await executeRun({
        experiment,
        task: loadedTask,
        arm: run.arm,
        seed: run.seed,
        order: run.order,
        specSha256: payload.specSha256,
        taskFiles: payload.taskFiles,
        agent,
        agentVersion: version,
        signal: context.signal,
        log: (line) => console.warn(line),
      })
      const recordedModel = payload.recordedVersions[run.arm]?.model
      if (recordedModel !== undefined && recordedModel !== record.versions.model) {
        throw new SpecError(
          `arm ${run.arm}: the agent used model ${record.versions.model}, but ${runsFile} holds runs with ${recordedModel}. ` +
            `A resume never mixes versions; this run is not recorded.`,
        )
      }
      setRun(context.task.meta, record)
      await context.annotate(runSummary(record), 'run')
      if (experiment.spec.failUnsolved && !record.solved) {
        throw new Error(`${caseName(run)}: ${record.outcome} (failUnsolved is on; the run is recorded)`)
      }
    })
  }
}
