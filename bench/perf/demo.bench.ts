import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Bench } from 'tinybench'
import { createAgent } from '../../src/agents/index.ts'
import type { Agent } from '../../src/agents/types.ts'
import { judge, touchesGoldFile, type OracleJudgement } from '../../src/oracle/index.ts'
import { armAgentSpec, buildRecord } from '../../src/runs/execute.ts'
import { runVersions } from '../../src/runs/versions.ts'
import { prepareExperiment } from '../../src/runs/prepare.ts'
import { appendRun } from '../../src/runs/store.ts'
import { applyReferenceSolution, referenceSolution } from '../../src/tasks/solution.ts'
import type { Task } from '../../src/tasks/task.ts'
import { buildAgentEnv } from '../../src/workspace/env.ts'
import { createWorkspace } from '../../src/workspace/index.ts'
import { applyArmSetup } from '../../src/workspace/setup.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { benchRows, printBenchTable } from './table.ts'
import { UNSANDBOXED } from '../../src/sandbox/index.ts'

/**
 * The harness's own time per run against the agent's, on the demo: the real
 * Claude Code CLI against the scripted model server (the agent), and each of
 * the harness's phases of a run (DESIGN: workspace ▶ arm setup ▶ agent ▶
 * oracle ▶ record) measured on its own over the demo's tasks, in the order
 * and with the functions `runTrial` uses. The baseline row is the agent: the
 * harness's phases should be a small fraction of it.
 * `TASK_OUTCOME_BENCH_EXPERIMENT` points it at another experiment file.
 */

const EXPERIMENT = process.env.TASK_OUTCOME_BENCH_EXPERIMENT ?? 'tasks/demo/experiment.ts'
const ITERATIONS = 6

export default async function run(): Promise<void> {
  const root = path.resolve(import.meta.dirname, '../..')
  const prepared = await prepareExperiment({ file: EXPERIMENT, root })
  const { experiment, tasks } = prepared
  if (tasks.length === 0) throw new Error(`${EXPERIMENT}: no task folders to benchmark`)
  const arms = Object.keys(experiment.spec.arms)
  const treatment = arms.find((arm) => arm !== experiment.spec.control) ?? experiment.spec.control
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-demo-'))
  const home = path.join(scratch, 'home')
  await mkdir(home, { recursive: true })
  const agents = new Map<string, { agent: Agent; version: string }>()
  for (const arm of arms) {
    const agent = createAgent(armAgentSpec(experiment, arm), { experimentDir: experiment.dir, root })
    agents.set(arm, { agent, version: await agent.version({ PATH: process.env.PATH ?? '' }) })
  }
  const envFor = (arm: string) => {
    const armSpec = experiment.spec.arms[arm]!
    return buildAgentEnv({
      host: process.env,
      pass: experiment.spec.env.pass,
      set: experiment.spec.env.set,
      armEnv: armSpec.setup.env,
      armPath: armSpec.setup.path.map((dir) => path.resolve(experiment.dir, dir)),
      cleanPath: experiment.spec.cleanPath,
      home,
    })
  }
  const setUp = async (workspace: Workspace, arm: string) => {
    await applyArmSetup(arm, experiment.spec.arms[arm]!.setup, {
      workspace: workspace.dir,
      experimentDir: experiment.dir,
      env: envFor(arm),
      timeoutMs: experiment.spec.timeoutSeconds * 1000,
    })
    await workspace.snapshot()
  }
  const applyGold = async (task: Task, workspace: Workspace) => {
    const solution = referenceSolution(task)
    if (solution === null) return
    const result = await applyReferenceSolution(solution, { cwd: workspace.dir })
    if (result.exitCode !== 0) throw new Error(`${task.id}: ${solution.path} failed (exit ${result.exitCode}): ${result.output.slice(-1000)}`)
  }

  // Every phase walks the same sequence of (task, arm): both arms of a task, then the next task.
  const cycle = () => {
    let index = 0
    return () => {
      const i = index++
      return { task: tasks[Math.floor(i / arms.length) % tasks.length]!, arm: arms[i % arms.length]! }
    }
  }
  const walks = new Map<string, ReturnType<typeof cycle>>()
  const nextFor = (phase: string) => {
    let walk = walks.get(phase)
    if (walk === undefined) walks.set(phase, (walk = cycle()))
    return walk()
  }
  let current: { task: Task; arm: string; workspace?: Workspace } = { task: tasks[0]!, arm: arms[0]! }
  let agentMs: number[] = []
  let lastAgentResult: Awaited<ReturnType<Agent['run']>> | undefined
  let lastJudgement: OracleJudgement | undefined
  let lastChanged: string[] = []
  const fresh = (phase: string) => async () => {
    current = nextFor(phase)
    current.workspace = await createWorkspace(current.task, scratch)
  }
  const dispose = async () => {
    await current.workspace?.dispose()
    current.workspace = undefined
  }
  const transcript = path.join(scratch, 'transcript.jsonl')
  const runsFile = path.join(scratch, 'runs.jsonl')

  const bench = new Bench({ iterations: ITERATIONS, time: 0, warmup: false })
  bench
    .add(
      'agent: claude-code vs scripted model',
      async () => {
        const { task, arm, workspace } = current
        const started = performance.now()
        lastAgentResult = await agents.get(arm)!.agent.run({
          task,
          workspace: workspace!.dir,
          prompt: task.prompt,
          env: envFor(arm),
          budgetUsd: experiment.spec.budgetUsd,
          timeoutMs: experiment.spec.timeoutSeconds * 1000,
          transcriptPath: transcript,
          expectedHooks: experiment.spec.arms[arm]!.hooks,
          arm,
          seed: 1,
        })
        agentMs.push(performance.now() - started)
      },
      {
        beforeEach: async () => {
          await fresh('agent')()
          await setUp(current.workspace!, current.arm)
        },
        afterEach: dispose,
      },
    )
    .add('workspace: fresh copy of the task', async () => void (current.workspace = await createWorkspace(nextFor('workspace').task, scratch)), { afterEach: dispose })
    .add(`arm setup (${treatment}) and snapshot`, async () => setUp(current.workspace!, treatment), { beforeEach: fresh('setup'), afterEach: dispose })
    .add(
      "oracle: changed files, diff, the task's tests",
      async () => {
        const workspace = current.workspace!
        lastChanged = await workspace.changedFiles()
        await workspace.diff()
        lastJudgement = await judge(current.task, workspace, { timeoutMs: experiment.spec.oracleTimeoutSeconds * 1000, scratchDir: scratch })
      },
      {
        beforeEach: async () => {
          await fresh('oracle')()
          await current.workspace!.snapshot()
          await applyGold(current.task, current.workspace!)
        },
        afterEach: dispose,
      },
    )
    .add('record: build, validate, append', async () => {
      const { task, arm } = nextFor('record')
      const started = new Date()
      const record = buildRecord(
        {
          experiment,
          task,
          arm,
          seed: 1,
          order: 0,
          specSha256: prepared.specSha256,
        },
        {
          agent: lastAgentResult!,
          judgement: lastJudgement!,
          changedFiles: lastChanged,
          goldFileTouched: touchesGoldFile(task, lastChanged),
          versions: {
            ...runVersions(experiment, arm, { agentVersion: agents.get(arm)!.version, sandbox: UNSANDBOXED, toolchain: 'node (benchmark)', testRunner: null }),
            model: lastAgentResult!.model ?? armAgentSpec(experiment, arm).model ?? null,
          },
          sandbox: null,
        },
        [],
        started,
        new Date(),
      )
      appendRun(runsFile, record)
    })
  try {
    await bench.run()
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
  const rows = benchRows(bench)
  printBenchTable(`One demo run, phase by phase (${tasks.length} task(s) × ${arms.length} arms, ${ITERATIONS} iterations each; baseline: the agent)`, rows)
  const agent = rows[0]!.meanMs
  const harness = rows.slice(1).reduce((sum, row) => sum + row.meanMs, 0)
  console.log(
    `  harness per run (workspace + setup + oracle + record): ${harness.toFixed(0)} ms = ${((harness / agent) * 100).toFixed(1)}% of the agent's ${agent.toFixed(0)} ms` +
      ` (agent runs: ${agentMs.map((ms) => ms.toFixed(0)).join(', ')} ms)`,
  )
  agentMs = []
}
