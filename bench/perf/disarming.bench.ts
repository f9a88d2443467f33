import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Bench } from 'tinybench'
import { scanForDisarming } from '../../src/oracle/disarming/index.ts'
import { resolveOracleToolchain } from '../../src/oracle/toolchain.ts'
import { runTestCommand } from '../../src/oracle/test-command.ts'
import { loadTask } from '../../src/tasks/load.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { copyTemplate, parentTemplate } from '../../src/workspace/template.ts'
import { type BenchRow, benchRows, printBenchTable } from './table.ts'

/**
 * What the integrity-flag scan costs a run, beside the oracle's own time: the
 * demo's first task, its fix's tests run by the real `node --test` on a copy
 * (the oracle's test command, baseline), against the parser's scan of the
 * files its gold patch changes (JavaScript, in the harness's process) and of
 * the same with one Python file (its analysis in the oracle's sandbox, a
 * process of its own), in short rounds of alternating order.
 */

const ROUNDS = 4
const PYTHON_FILE = `import json\nimport os\n\n\ndef load(path):\n    with open(path) as handle:\n        return json.load(handle)\n\n\nclass Rates:\n    def __init__(self, table):\n        self.table = table\n\n    def rate(self, key):\n        return self.table.get(key, 0)\n`

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function pooledRow(name: string, samples: readonly number[]): BenchRow {
  const sorted = [...samples].sort((a, b) => a - b)
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!
  return { name, meanMs: sorted.reduce((sum, value) => sum + value, 0) / sorted.length, p50Ms: median(sorted), p99Ms: p99, samples: sorted.length }
}

export default async function run(): Promise<void> {
  const task = (await loadTask(path.resolve(import.meta.dirname, '../../tasks/demo/001-quoted-descriptions-containing-commas'))) as GitFixTask
  const template = await parentTemplate(task.repo, task.metadata.base)
  const copy = await mkdtemp(path.join(os.tmpdir(), 'bench-disarming-'))
  await copyTemplate(template, copy)
  for (const file of task.metadata.test_files) await cp(path.join(task.oracleDir, file), path.join(copy, file))
  await writeFile(path.join(copy, 'rates.py'), PYTHON_FILE)
  const gold = task.metadata.gold_files
  const toolchain = await resolveOracleToolchain(process.env.PATH, [])
  const scanOptions = { toolchain, sandboxed: true, timeoutMs: 60_000 }
  const common = { cwd: copy, junitFile: path.join(copy, '..', `${path.basename(copy)}-junit.xml`), timeoutMs: 60_000, home: path.join(copy, '..', `${path.basename(copy)}-home`) }
  const names = {
    oracle: "the fix's tests (the oracle's test command, baseline)",
    script: `scan of the gold change (${gold.length} JavaScript file(s))`,
    python: 'scan of the gold change and one Python file (sandboxed)',
  }
  type Key = keyof typeof names
  const work: Record<Key, () => Promise<unknown>> = {
    oracle: () => runTestCommand({ ...common, command: task.metadata.test_command, testFiles: task.metadata.test_files }),
    script: () => scanForDisarming(copy, gold, scanOptions),
    python: () => scanForDisarming(copy, [...gold, 'rates.py'], scanOptions),
  }
  const samples: Record<Key, number[]> = { oracle: [], script: [], python: [] }
  const ratios: Record<'script' | 'python', number[]> = { script: [], python: [] }
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ iterations: 5, warmupIterations: round === 0 ? 2 : 0, retainSamples: true })
    const order: Key[] = round % 2 === 0 ? ['oracle', 'script', 'python'] : ['python', 'script', 'oracle']
    for (const key of order) bench.add(names[key], work[key])
    await bench.run()
    const rows = benchRows(bench)
    const p50 = (key: Key) => rows.find((row) => row.name === names[key])!.p50Ms
    ratios.script.push(p50('script') / p50('oracle'))
    ratios.python.push(p50('python') / p50('oracle'))
    for (const entry of bench.tasks) {
      const key = (Object.keys(names) as Key[]).find((candidate) => names[candidate] === entry.name)!
      if ('latency' in entry.result && entry.result.latency.samples !== undefined) samples[key].push(...entry.result.latency.samples)
    }
  }
  const rows = (Object.keys(names) as Key[]).map((key) => pooledRow(names[key], samples[key]))
  printBenchTable(`the integrity-flag scan beside the oracle on ${task.id} (${ROUNDS} alternating rounds; load ${os.loadavg()[0]!.toFixed(1)})`, rows)
  console.log(`scan / oracle, median of the rounds' ratios of medians: JavaScript ${median(ratios.script).toFixed(3)}, with Python ${median(ratios.python).toFixed(3)}`)
  await rm(copy, { recursive: true, force: true })
}
