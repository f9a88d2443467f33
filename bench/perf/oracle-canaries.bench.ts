import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Bench } from 'tinybench'
import { layDecoys } from '../../src/oracle/canaries/decoys.ts'
import { canaryFramework } from '../../src/oracle/canaries/framework.ts'
import { layCanaries, takenNames } from '../../src/oracle/canaries/lay.ts'
import { withSecondChannel } from '../../src/oracle/second-channel.ts'
import { writeNodePreload } from '../../src/oracle/preload.ts'
import { runTestCommand } from '../../src/oracle/test-command.ts'
import { loadTask } from '../../src/tasks/load.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { copyTemplate, parentTemplate } from '../../src/workspace/template.ts'
import { type BenchRow, benchRows, printBenchTable } from './table.ts'

/**
 * What the oracle's own checks cost a run: the demo's first task (the real
 * `node --test` on the bundled sample's fix tests), its test command on the
 * copy as the fix has it (baseline), against the same with this run's
 * decoys and canaries laid, the runner's second channel asked for and the
 * preload (what every oracle run now does), in short rounds of alternating
 * order. Target: under 10% more than the baseline.
 */

const TARGET_RATIO = 1.1
const ROUNDS = 6

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

export default async function run(): Promise<void> {
  const task = (await loadTask(path.resolve(import.meta.dirname, '../../tasks/demo/001-quoted-descriptions-containing-commas'))) as GitFixTask
  const template = await parentTemplate(task.repo, task.metadata.base)
  const copy = await mkdtemp(path.join(os.tmpdir(), 'bench-canaries-'))
  await copyTemplate(template, copy)
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
  const common = { cwd: copy, junitFile: path.join(copy, '..', `${path.basename(copy)}-junit.xml`), timeoutMs: 60_000, home: path.join(copy, '..', `${path.basename(copy)}-home`) }
  const preload = await writeNodePreload(path.join(copy, '..', `${path.basename(copy)}-preload`))
  const baseline = async () => {
    await restore()
    await runTestCommand({ ...common, command: task.metadata.test_command, testFiles: files })
  }
  const checked = async () => {
    await restore()
    const taken = takenNames(realIds)
    const decoys = await layDecoys(copy, framework, files, realIds, taken)
    const real = files.map((file) => decoys.find((decoy) => decoy.file === file)?.movedTo ?? file)
    await layCanaries(copy, framework, real, realIds, taken)
    const given = [...real, ...decoys.filter((decoy) => !decoy.imported).map((decoy) => decoy.file)]
    await runTestCommand({ ...common, command: withSecondChannel(framework, task.metadata.test_command), testFiles: given, preload })
    for (const decoy of decoys) await rm(path.join(copy, decoy.movedTo), { force: true })
  }
  // Short rounds, the two tasks in alternating order: on a loaded machine a long block of one task then the other
  // measures the load's drift as much as the checks; the ratio is the median of the rounds' ratios of medians.
  const names = { baseline: "the fix's tests as they are (baseline)", checked: 'with decoys, canaries, the second channel and the preload' }
  const samples: Record<keyof typeof names, number[]> = { baseline: [], checked: [] }
  const ratios: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ iterations: 4, warmupIterations: round === 0 ? 2 : 0, retainSamples: true })
    const order: (keyof typeof names)[] = round % 2 === 0 ? ['baseline', 'checked'] : ['checked', 'baseline']
    for (const key of order) bench.add(names[key], key === 'baseline' ? baseline : checked)
    await bench.run()
    const rows = benchRows(bench)
    const p50 = (key: keyof typeof names) => rows.find((row) => row.name === names[key])!.p50Ms
    ratios.push(p50('checked') / p50('baseline'))
    for (const task of bench.tasks) {
      const result = task.result
      if ('latency' in result && result.latency.samples !== undefined) samples[task.name === names.baseline ? 'baseline' : 'checked'].push(...result.latency.samples)
    }
  }
  const rows = (Object.keys(names) as (keyof typeof names)[]).map((key) => pooledRow(names[key], samples[key]))
  printBenchTable(`the oracle's checks on ${task.id} (node --test; ${ROUNDS} alternating rounds; load ${os.loadavg()[0]!.toFixed(1)})`, rows)
  const ratio = median(ratios)
  console.log(
    `rounds' ratios of medians ${ratios.map((value) => value.toFixed(2)).join(' ')}; median ${ratio.toFixed(3)} (target < ${TARGET_RATIO}): ${ratio < TARGET_RATIO ? 'met' : 'NOT met'}`,
  )
  await rm(copy, { recursive: true, force: true })
}
