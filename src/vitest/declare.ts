import path from 'node:path'
import { test, type TestContext } from 'vitest'
import { createAgent } from '../agents/index.ts'
import type { Agent } from '../agents/types.ts'
import { HarnessFailure, SpecError } from '../errors.ts'
import { resolveExperiment, type LoadedExperiment } from '../experiment/load.ts'
import { armAgentSpec, executeRun } from '../runs/execute.ts'
import { recordedVersionsFor } from '../runs/versions.ts'
import type { RunRecord, Versions } from '../runs/record.ts'
import { runsFilePath } from '../runs/store.ts'
import { loadTask } from '../tasks/load.ts'
import type { Task } from '../tasks/task.ts'
import { isRefusal, reserveRun, type Reservation } from './budget.ts'
import { ALREADY_RECORDED, NOT_RUN_BUDGET, NOT_RUN_STOPPED, setRun } from './meta.ts'
import type { TaskModulePayload } from './payload.ts'
import { currentSession } from './session.ts'
import { readStopNote, STOPPING_REASONS, writeStopNote } from './stop.ts'
import { awaitBlock } from './looks.ts'
import { runKey, runLabel } from '../shared/run-label.ts'

/**
 * Vitest's `test`, for the generated test module of a task folder: it imports
 * it from here (the user's task folder may not resolve `vitest` itself).
 */
export { test }

/** One run's Vitest case body. */
export type TaskRunCase = (context: TestContext) => Promise<void>

/**
 * The bodies of a task's run cases, one per run in the payload's seeded order.
 * Runs in a Vitest worker: the generated test module of a task folder calls it
 * and declares each case with a literal `test(name, …)` of its own, so that
 * Vitest 5's `vitest list`, which parses test modules instead of running them,
 * finds the cases too.
 */
export function taskRunCases(experimentModule: Record<string, unknown>, payload: TaskModulePayload): TaskRunCase[] {
  const experiment: LoadedExperiment = resolveExperiment(experimentModule, payload.experiment)
  const runsFile = path.relative(experiment.root, runsFilePath(experiment.outDir))
  let task: Promise<Task> | undefined
  const agents = new Map<string, Promise<{ agent: Agent; version: string }>>()

  const agentFor = (arm: string, env: Record<string, string>) => {
    let entry = agents.get(arm)
    if (entry === undefined) {
      entry = (async () => {
        const agent = createAgent(armAgentSpec(experiment, arm), { experimentDir: experiment.dir, root: experiment.root })
        const version = await agent.version(env)
        return { agent, version }
      })()
      agents.set(arm, entry)
    }
    return entry
  }

  const metadataFile = path.join(payload.taskDir, 'metadata.json')
  const session = currentSession()
  const name = experiment.spec.name

  return payload.runs.map((run) => async (context: TestContext) => {
    if (run.recorded !== null) {
      context.skip(`${ALREADY_RECORDED} ${runsFile} (${run.recorded.outcome}, $${run.recorded.costUsd.toFixed(4)}): not run again`)
    }
    const stop = session === undefined ? undefined : readStopNote(session.dir, name)
    if (stop !== undefined) context.skip(`${NOT_RUN_STOPPED} at ${stop.run} (${stop.reason}): ${firstLine(stop.message)}`)
    if (payload.block !== null && payload.block > 1) {
      if (session === undefined)
        throw new SpecError(`experiment ${name} has a sequential design: its runs are scheduled by the task-outcome plugin's reporter (run it with vitest, not alone)`)
      const verdict = await awaitBlock(session.dir, name, payload.block, context.signal)
      if (!verdict.run) {
        context.skip(verdict.note)
        return
      }
    }
    let reservation: Reservation | undefined
    if (payload.budget !== null && session !== undefined) {
      const reserved = reserveRun(path.join(session.dir, `budget-${name}`), runKey(run), payload.budget)
      if (isRefusal(reserved)) {
        context.skip(
          `${NOT_RUN_BUDGET}: $${reserved.spentUsd.toFixed(2)} spent + $${reserved.runningUsd.toFixed(2)} under way at their caps + ` +
            `$${payload.budget.runCapUsd.toFixed(2)} for this run would pass maxBudgetUsd $${reserved.maxUsd.toFixed(2)}` +
            (payload.budget.shard === null ? '' : ` (this shard's share, ${payload.budget.shard})`),
        )
        return
      }
      reservation = reserved
    }
    let spent = payload.budget?.runCapUsd ?? 0
    let record: RunRecord
    try {
      const loadedTask = await (task ??= loadTask(payload.taskDir, experiment.root))
      const { agent, version } = await agentFor(run.arm, { PATH: process.env.PATH ?? '' })
      record = await executeRun({
        experiment,
        task: loadedTask,
        arm: run.arm,
        seed: run.seed,
        order: run.order,
        specSha256: payload.specSha256,
        taskFiles: payload.taskFiles,
        ...versionsToCheck(experiment, payload, run.arm),
        agent,
        agentVersion: version,
        signal: context.signal,
        log: (line) => console.warn(line),
        ...(session === undefined ? {} : { workspaceRoot: session.dir }),
      })
      spent = record.costUsd
    } catch (error) {
      if (error instanceof HarnessFailure && STOPPING_REASONS.has(error.reason) && session !== undefined) {
        writeStopNote(session.dir, name, { reason: error.reason, message: error.message, run: runLabel(run) })
      }
      throw pointAtTask(error, metadataFile)
    } finally {
      reservation?.settle(spent)
    }
    setRun(context.task.meta, record)
    for (const [type, message] of runProperties(record)) await context.annotate(message, type)
    if (experiment.spec.failUnsolved && !record.solved) {
      throw pointAtTask(new Error(`${runLabel(run)}: ${record.outcome} (failUnsolved is on; the run is recorded)`), metadataFile)
    }
  })
}

/** The recorded versions this run is checked against (`recordedVersionsFor`, across arms), as `RunContext` takes them. */
function versionsToCheck(experiment: LoadedExperiment, payload: TaskModulePayload, arm: string): { recordedVersions?: Partial<Versions> } {
  const agentSpec = JSON.stringify(armAgentSpec(experiment, arm))
  const sameAgent = Object.keys(experiment.spec.arms).filter((other) => JSON.stringify(armAgentSpec(experiment, other)) === agentSpec)
  const recorded = recordedVersionsFor(payload.recordedVersions, arm, payload.recordedTestRunner, sameAgent)
  return recorded === undefined ? {} : { recordedVersions: recorded }
}

/** The first line of a message (a stop note's reason in one line). */
function firstLine(message: string): string {
  return message.split('\n').find((line) => line.trim() !== '' && !line.startsWith('no measurement after')) ?? message
}

/**
 * The run's record as JUnit properties (Vitest writes a case's annotations as
 * `<property>`s): one property per measure, so CI tools read them without parsing.
 */
export function runProperties(record: RunRecord): Array<[string, string]> {
  const tokens = record.tokens == null ? '' : String(record.tokens.input + record.tokens.output + record.tokens.cacheRead + record.tokens.cacheWrite)
  return [
    ['outcome', record.outcome],
    ['costUsd', String(record.costUsd)],
    ['turns', record.turns === null ? '' : String(record.turns)],
    ['tokens', tokens],
    ['specSha256', record.specSha256],
    ['task', record.task],
    ['arm', record.arm],
    ['seed', String(record.seed)],
  ]
}

/**
 * Makes a case's failure point at its task's metadata.json instead of the
 * harness's source: the default reporter shows the task, and GitHub's
 * annotation lands on it. The message stays whole; the stack is the harness's
 * business, not the user's.
 */
function pointAtTask(error: unknown, metadataFile: string): Error {
  const failure = error instanceof Error ? error : new Error(String(error))
  // Its causes too: Vitest prints each cause's stack under the failure ("Caused by: …").
  for (let current: unknown = failure; current instanceof Error; current = current.cause) {
    current.stack = `${current.name}: ${current.message}\n    at ${metadataFile}:1:1`
  }
  return failure
}
