import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Bench } from 'tinybench'
import { layDecoys } from '../../src/oracle/canaries/decoys.ts'
import { canaryFramework } from '../../src/oracle/canaries/framework.ts'
import { layCanaries, takenNames } from '../../src/oracle/canaries/lay.ts'
import { mountFixCopy, runFixTests, runPlainFixTests } from '../../src/oracle/git-fix.ts'
import type { OracleOptions } from '../../src/oracle/judgement.ts'
import { evaluateListed } from '../../src/oracle/junit/outcome.ts'
import { writeNodePreload } from '../../src/oracle/preload.ts'
import { withSecondChannel } from '../../src/oracle/second-channel.ts'
import { runTestCommand } from '../../src/oracle/test-command.ts'
import { oracleToolchain } from '../../src/oracle/toolchain.ts'
import { runReadOnlyMounts } from '../../src/runs/sandbox.ts'
import { DEFAULT_LIMITS, probeSandbox } from '../../src/sandbox/index.ts'
import { loadTask } from '../../src/tasks/load.ts'
import { applyReferenceSolution, referenceSolution } from '../../src/tasks/solution.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { taskDependencies } from '../../src/workspace/dependencies.ts'
import { createWorkspace, defaultWorkspaceRoot } from '../../src/workspace/index.ts'
import { copyTemplate, parentTemplate, templateRoot } from '../../src/workspace/template.ts'
import { type BenchRow, benchRows, printBenchTable } from './table.ts'

/**
 * What the oracle's own checks (decoys, canaries, the runner's second
 * channel, the preload) add to the oracle's time as a run pays it, on the
 * demo's first task (the real `node --test` on the bundled sample's fix
 * tests) with the gold change in a sandboxed overlay workspace, the agent's
 * change read as a run reads it. Checked: `runFixTests` itself, sandboxed as
 * `executeRun` builds its options (bubblewrap, the run's read-only mounts and
 * the resolved toolchain, the workspace's template watched, the overlay copy
 * of the template mounted ahead by `mountFixCopy` and disposed after, as a
 * run's judging does): the preload written, the agent's change and the fix's
 * tests placed, the checks laid, the sandboxed test command, the report, the
 * canaries' check and the second channel read. Baseline: the same oracle
 * without the checks, which is what its probe on the clean parent runs
 * (`runPlainFixTests`: the copy mounted, the agent's change, here, and the
 * fix's tests placed, the test command, the copy disposed) plus the report's
 * reading against the listed tests. Both arms pay the mount and the disposal
 * in line (a run overlaps them with reading the agent's change and the
 * guard's last look). Target: the checked oracle's time under 1.1× the
 * baseline's.
 *
 * A second pair times the bare test command alone, unsandboxed on a plain
 * copy with the fix's tests (`runTestCommand`), with and without the checks
 * laid: the checks' share of the runner's own time, where the oracle's fixed
 * costs (the sandbox, the overlay) do not dilute it. No target; printed so
 * that figure is kept.
 *
 * Short rounds in alternating order: on a loaded machine a long block of
 * one task then another measures the load's drift as much as the checks;
 * each ratio is the median of the rounds' ratios of medians. The load is
 * printed with the figures, which move with it.
 */

const TARGET_RATIO = 1.1
const ROUNDS = 12

type Arm = 'oracle' | 'checkedOracle' | 'bare' | 'checkedBare'

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** A table row from every round's samples of one task. */
function pooledRow(name: string, samples: readonly number[]): BenchRow {
  const sorted = [...samples].sort((a, b) => a - b)
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!
  return { name, meanMs: sorted.reduce((sum, value) => sum + value, 0) / sorted.length, p50Ms: median(sorted), p99Ms: p99, samples: sorted.length }
}

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')

export default async function run(): Promise<void> {
  const projectRoot = path.resolve(import.meta.dirname, '../..')
  const task = (await loadTask(path.join(projectRoot, 'tasks/demo/001-quoted-descriptions-containing-commas'))) as GitFixTask
  await probeSandbox()
  const workspaceRoot = defaultWorkspaceRoot()
  await mkdir(workspaceRoot, { recursive: true })
  const scratch = await mkdtemp(path.join(workspaceRoot, 'bench-oracle-'))

  // The run's side: a sandboxed overlay workspace with the gold change, and the oracle's options as executeRun builds them.
  const workspace = await createWorkspace(task, workspaceRoot, { overlay: true })
  await workspace.snapshot()
  const applied = await applyReferenceSolution(referenceSolution(task)!, { cwd: workspace.dir })
  if (applied.exitCode !== 0) throw new Error(`the gold patch did not apply: ${applied.output}`)
  const changedFiles = [...(await workspace.readChanges()).files]
  const toolchain = await oracleToolchain(process.env.PATH, [projectRoot, workspaceRoot, templateRoot()])
  const readOnly = [...runReadOnlyMounts(process.env.PATH, { projectRoot, workspaceRoot }, []), ...toolchain.mounts]
  const stages = { checkedOracle: [] as number[], oracle: [] as number[] }
  const options = (scratchDir: string): OracleOptions => ({
    timeoutMs: 60_000,
    scratchDir,
    sandbox: { readOnly, diskMb: DEFAULT_LIMITS.diskMb },
    toolchain,
    watchedTemplate: workspace.template,
    changedFiles,
  })
  // One scratch folder per arm, reused (the oracle's copies are disposed by it; removing the rest is the run's scope's).
  // As a run's judging does: the copy mounted ahead (there while the agent's change is read) and disposed after.
  const checkedOracle = async () => {
    const opts = options(path.join(scratch, 'checked'))
    const mounting = mountFixCopy(task, opts)!
    try {
      const judgement = await runFixTests(task, workspace, {
        ...opts,
        mountedCopy: mounting,
        onStage: (stage, ms) => void (stage === 'test command' && stages.checkedOracle.push(ms)),
      })
      if (!judgement.solved || (judgement.integrityFlags ?? []).length > 0) throw new Error(`the checked oracle did not solve the gold change:\n${judgement.stderr.slice(0, 2000)}`)
    } finally {
      await (await mounting).dispose()
    }
  }
  const oracle = async () => {
    const dependencies = await taskDependencies(task, { pathVariable: toolchain.path })
    const run = await runPlainFixTests(task, options(path.join(scratch, 'plain')), 'oracle', dependencies, { dir: workspace.dir, files: changedFiles })
    stages.oracle.push(run.durationMs)
    const outcome = run.results === null ? null : evaluateListed(run.results, task.metadata.FAIL_TO_PASS, task.metadata.PASS_TO_PASS)
    if (outcome === null || outcome.failing.length > 0) throw new Error(`the plain oracle did not pass the gold change: ${run.noResults ?? outcome?.failing.join(', ')}`)
  }

  // The bare test command: a plain copy with the fix's tests and the gold change, unsandboxed.
  const template = await parentTemplate(task.repo, task.metadata.base)
  const copy = path.join(scratch, 'bare')
  await mkdir(copy)
  await copyTemplate(template, copy)
  for (const file of changedFiles) await cp(path.join(workspace.dir, file), path.join(copy, file))
  const files = task.metadata.test_files
  const originals = new Map<string, string>()
  for (const file of files) {
    await cp(path.join(task.oracleDir, file), path.join(copy, file))
    originals.set(file, await readFile(path.join(copy, file), 'utf8'))
  }
  const framework = canaryFramework(task.metadata.test_command, files)!
  const realIds = [...task.metadata.FAIL_TO_PASS, ...task.metadata.PASS_TO_PASS]
  const restore = async () => {
    for (const [file, text] of originals) await writeFile(path.join(copy, file), text)
  }
  const common = { cwd: copy, junitFile: path.join(scratch, 'bare-junit.xml'), timeoutMs: 60_000, home: path.join(scratch, 'bare-home') }
  const preload = await writeNodePreload(path.join(scratch, 'bare-preload'))
  const bare = async () => {
    await restore()
    await runTestCommand({ ...common, command: task.metadata.test_command, testFiles: files })
  }
  const checkedBare = async () => {
    await restore()
    const taken = takenNames(realIds)
    const decoys = await layDecoys(copy, framework, files, realIds, taken)
    const real = files.map((file) => decoys.find((decoy) => decoy.file === file)?.movedTo ?? file)
    await layCanaries(copy, framework, real, realIds, taken)
    const given = [...real, ...decoys.filter((decoy) => !decoy.imported).map((decoy) => decoy.file)]
    await runTestCommand({ ...common, command: withSecondChannel(framework, task.metadata.test_command), testFiles: given, preload })
    for (const decoy of decoys) await rm(path.join(copy, decoy.movedTo), { force: true })
  }

  const arms: Record<Arm, { name: string; fn: () => Promise<void> }> = {
    oracle: { name: 'oracle without the checks (its probe: runPlainFixTests), sandboxed', fn: oracle },
    checkedOracle: { name: 'oracle as a run pays it (runFixTests: decoys, canaries, 2nd channel, preload), sandboxed', fn: checkedOracle },
    bare: { name: 'bare test command, unsandboxed, plain copy', fn: bare },
    checkedBare: { name: 'bare test command with the checks laid, unsandboxed, plain copy', fn: checkedBare },
  }
  const order = Object.keys(arms) as Arm[]
  const samples: Record<Arm, number[]> = { oracle: [], checkedOracle: [], bare: [], checkedBare: [] }
  const ratios = { oracle: [] as number[], bare: [] as number[] }
  const loadBefore = load()
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const bench = new Bench({ iterations: 4, warmupIterations: round === 0 ? 2 : 0, retainSamples: true })
      for (const arm of round % 2 === 0 ? order : [...order].reverse()) bench.add(arm, arms[arm].fn)
      await bench.run()
      const rows = benchRows(bench)
      const p50 = (arm: Arm) => rows.find((row) => row.name === arm)!.p50Ms
      ratios.oracle.push(p50('checkedOracle') / p50('oracle'))
      ratios.bare.push(p50('checkedBare') / p50('bare'))
      for (const task of bench.tasks) {
        const result = task.result
        if ('latency' in result && result.latency.samples !== undefined) samples[task.name as Arm].push(...result.latency.samples)
      }
    }
  } finally {
    await workspace.dispose()
    await rm(scratch, { recursive: true, force: true })
  }
  printBenchTable(
    `the oracle's checks on ${task.id} (node --test, gold change; ${ROUNDS} alternating rounds; load before ${loadBefore}, after ${load()})`,
    order.map((arm) => pooledRow(arms[arm].name, samples[arm])),
  )
  console.log(`test command inside the oracle (medians): ${median(stages.oracle).toFixed(0)} ms without the checks, ${median(stages.checkedOracle).toFixed(0)} ms with them`)
  const show = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ')
  const bareRatio = median(ratios.bare)
  console.log(`bare test command, with the checks laid ÷ without (no target): rounds ${show(ratios.bare)}; median ${bareRatio.toFixed(3)}`)
  const ratio = median(ratios.oracle)
  console.log(
    `the oracle's time with its checks ÷ without them (runFixTests ÷ runPlainFixTests, sandboxed, as a run pays it): rounds ${show(ratios.oracle)}; ` +
      `median ${ratio.toFixed(3)} (target < ${TARGET_RATIO}): ${ratio < TARGET_RATIO ? 'met' : 'NOT met'}`,
  )
}
