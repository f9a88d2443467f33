import seedrandom from 'seedrandom'
import { Bench } from 'tinybench'
import { expectedRuns } from '../../src/analysis/completeness.ts'
import { renderReportFiles } from '../../src/analysis/conclude.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import type { AnalysisSettings } from '../../src/analysis/settings.ts'
import { DecisionRuleSchema } from '../../src/experiment/schema.ts'
import { summariseTaskArms } from '../../src/analysis/task-summary.ts'
import type { RecordedRun } from '../../src/runs/record.ts'
import { formatRuns, parseRuns } from '../../src/runs/store.ts'
import { benchRows, printBenchTable } from './table.ts'

/**
 * The whole analysis of 100,000 recorded runs: 1,000 tasks × 2 arms × 50
 * seeds (the exact Wilcoxon's cost grows with the number of tasks, not of
 * runs, so this is the heavy shape). Targets: the analysis under 1 s; the
 * analysis with report.json/md/html under 2× the analysis alone and under
 * 1.5 s (the report grows with its summary, not with the runs: figures
 * aggregate and the run table points to the artifacts past their limits).
 * Baselines in the same run: reading the file (JSON.parse and the zod check
 * every reader does) and the per-task reduction alone. The last line says
 * whether the report's targets are met, for a script to check.
 */

const TASKS = 1_000
const SEEDS = 50

function records(): RecordedRun[] {
  const random = seedrandom('bench-analysis')
  const runs: RecordedRun[] = []
  for (let task = 1; task <= TASKS; task++) {
    const id = String(task).padStart(4, '0')
    const base = 0.05 + random() * 2
    const change = -0.05 + (random() - 0.5) * 0.4
    for (const arm of ['baseline', 'tool']) {
      for (let seed = 1; seed <= SEEDS; seed++) {
        const solved = random() < 0.8
        const cost = Math.round(base * (arm === 'tool' ? 1 + change : 1) * (0.7 + random() * 0.6) * 1e6) / 1e6
        runs.push({
          experiment: 'bench',
          specSha256: 'f'.repeat(64),
          task: id,
          arm,
          seed,
          order: runs.length,
          outcome: solved ? 'solved' : 'unsolved',
          solved,
          costUsd: cost,
          costSource: 'agent',
          turns: 5 + Math.floor(random() * 40),
          toolCalls: 10,
          toolCallsBeforeFirstEdit: Math.floor(random() * 20),
          wallMs: Math.floor(random() * 600_000),
          goldFileTouched: random() < 0.7,
        })
      }
    }
  }
  return runs
}

const settings: AnalysisSettings = {
  experiment: 'bench',
  stage: 'pilot',
  control: 'baseline',
  treatments: ['tool'],
  designChecks: [],
  departures: [],
  planChecked: true,
  budgetUsd: 5,
  ...DecisionRuleSchema.parse({}),
}

export default async function run(): Promise<void> {
  const runs = records()
  const text = formatRuns(runs)
  const expected = expectedRuns([...new Set(runs.map((record) => record.task))], ['baseline', 'tool'], SEEDS)
  const report = analyzeRuns(runs, settings, expected)
  console.log(
    `data: ${runs.length} runs = ${TASKS} tasks × 2 arms × ${SEEDS} seeds (${(text.length / 1e6).toFixed(1)} MB of runs.jsonl); ` +
      `verdict ${report.decision.verdict}, V = ${report.primary!.statistic}, p = ${report.primary!.p.toExponential(3)}, ` +
      `median r = ${(report.effect!.medianRelativeChange * 100).toFixed(2)}%`,
  )

  const bench = new Bench({ time: 3000, iterations: 5, warmupIterations: 1 })
  bench
    .add('read runs.jsonl (JSON + zod + hash chain, parseRuns)', () => void parseRuns(text, 'runs.jsonl'))
    .add('per-task reduction only', () => void summariseTaskArms(runs, ['baseline', 'tool'], 5))
    .add('whole analysis (analyzeRuns)', () => void analyzeRuns(runs, settings, expected))
    .add('analysis + report.json/md/html', () => void renderReportFiles(analyzeRuns(runs, settings, expected), runs))
  await bench.run()
  const rows = benchRows(bench)
  printBenchTable(`Analysis of ${runs.length.toLocaleString('en')} records`, rows, { targetMs: 1000 })
  const sizes = Object.entries(renderReportFiles(report, runs)).map(([name, text]) => `${name} ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB`)
  console.log(`report files: ${sizes.join(', ')}`)
  const analysis = rows.find((row) => row.name === 'whole analysis (analyzeRuns)')!.p50Ms
  const withReport = rows.find((row) => row.name === 'analysis + report.json/md/html')!.p50Ms
  const ratio = withReport / analysis
  const met = ratio < 2 && withReport < 1500
  console.log(
    `analysis: ${runs.length.toLocaleString('en')} records, analysis ${analysis.toFixed(0)} ms, with report.json/md/html ${withReport.toFixed(0)} ms ` +
      `(${ratio.toFixed(2)}× the analysis; medians; targets < 2× and < 1500 ms: ${met ? 'met' : 'NOT met'})`,
  )
}
