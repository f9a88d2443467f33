import { existsSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { concludeExperiment as conclude, type ConcludeInput } from '../../src/analysis/conclude.ts'
import { writeConclusion } from '../../src/runs/report-files.ts'
import { parseExperiment } from '../../src/experiment/parse.ts'
import { planRuns } from '../../src/runs/plan.ts'
import { experimentRecords, SPEC, taskIds } from './records.ts'

/** What the reporter does when a suite ends: the analysis concludes (pure), then `runs/` writes its files. */
function concludeExperiment(input: ConcludeInput & { readonly outDir: string }) {
  const conclusion = conclude(input)
  return { ...conclusion, ...writeConclusion(input.outDir, conclusion) }
}

function experiment(stage: string) {
  return parseExperiment(
    {
      name: 'exp',
      stage,
      agent: { kind: 'noop' },
      arms: { baseline: {}, tool: {} },
      control: 'baseline',
      seeds: 3,
      budgetUsd: 2,
      decision: { resamples: 2000 },
    },
    'experiment.ts',
  )
}

function inputs(stage = 'pilot') {
  const spec = experiment(stage)
  const plan = planRuns(
    taskIds(8).map((id) => ({ id, arms: ['baseline', 'tool'] })),
    3,
    spec.orderSeed,
  )
  const { records } = experimentRecords({ tasks: 8, seeds: 3, change: (task) => -0.2 + (task % 2) * 0.05 })
  return { spec, plan, records: records.map((record) => ({ ...record, specSha256: SPEC })) }
}

describe('concludeExperiment (what the reporter calls when a suite ends)', () => {
  test('lists the prompt allowances, each with its task and reason, in report.json, report.md and report.html', async () => {
    const outDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-conclude-'))
    const { spec, plan, records } = inputs()
    const promptAllowances = [{ task: '003-query-drops-plus', word: 'query', reason: 'users call the part after "?" the query' }]
    concludeExperiment({ experiment: spec, outDir, records, plan, promptAllowances })
    expect(JSON.parse(await readFile(path.join(outDir, 'report.json'), 'utf8')).promptAllowances).toEqual(promptAllowances)
    const markdown = await readFile(path.join(outDir, 'report.md'), 'utf8')
    expect(markdown).toContain('## Prompt allowances')
    expect(markdown).toContain('003-query-drops-plus: "query" (users call the part after "?" the query)')
    expect(await readFile(path.join(outDir, 'report.html'), 'utf8')).toContain('Prompt allowances')
  })

  test('a report without allowances has none and no such section', async () => {
    const outDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-conclude-'))
    const { spec, plan, records } = inputs()
    concludeExperiment({ experiment: spec, outDir, records, plan })
    expect(JSON.parse(await readFile(path.join(outDir, 'report.json'), 'utf8')).promptAllowances).toEqual([])
    expect(await readFile(path.join(outDir, 'report.md'), 'utf8')).not.toContain('Prompt allowances')
  })

  test('complete: writes report.json, report.md and report.html beside runs.jsonl and returns the verdict block', async () => {
    const outDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-conclude-'))
    const { spec, plan, records } = inputs()
    const conclusion = concludeExperiment({ experiment: spec, outDir, records, plan })
    expect(conclusion).toMatchObject({ complete: true, missing: 0, verdict: 'supported' })
    expect(conclusion.files).toEqual(['report.json', 'report.md', 'report.html'].map((name) => path.join(outDir, name)))
    const json = JSON.parse(await readFile(path.join(outDir, 'report.json'), 'utf8'))
    expect(json).toMatchObject({ experiment: 'exp', complete: true, tasks: 8, seeds: 3, arms: ['baseline', 'tool'], stage: 'pilot' })
    expect(conclusion.text).toContain('verdict: supported')
    expect(conclusion.text).toMatch(/cost: median change -1\d\.\d% \(95% CI -\d+\.\d% to -\d+\.\d%\); Wilcoxon V = 0, p = 0\.003906, exact, n = 8/)
    expect(conclusion.text).toContain('solved: tool 8/8, baseline 8/8 (difference 0); McNemar b = 0, c = 0, p = 1')
    expect(conclusion.text).toContain(`report: report.json, report.md, report.html in ${outDir}`)
  })

  test('run twice on the same runs, it writes the same bytes', async () => {
    const { spec, plan, records } = inputs()
    const read = async (outDir: string) => Promise.all(['report.json', 'report.md', 'report.html'].map((name) => readFile(path.join(outDir, name))))
    const a = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-conclude-'))
    const b = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-conclude-'))
    concludeExperiment({ experiment: spec, outDir: a, records, plan })
    concludeExperiment({ experiment: spec, outDir: b, records: [...records].reverse(), plan })
    expect(await read(b)).toEqual(await read(a))
  })

  test('incomplete (a filtered, sharded or interrupted run): writes nothing, says no verdict and how many runs are missing', async () => {
    const outDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-conclude-'))
    const { spec, plan, records } = inputs()
    const conclusion = concludeExperiment({ experiment: spec, outDir, records: records.slice(0, 30), plan })
    expect(conclusion).toMatchObject({ complete: false, missing: 18, verdict: 'no verdict', files: [] })
    expect(conclusion.text).toContain('verdict: no verdict')
    expect(conclusion.text).toContain('No verdict: 18 of 48 planned runs are missing.')
    expect(existsSync(path.join(outDir, 'report.json'))).toBe(false)
  })

  test('the pilot label and the demo label appear in the terminal block and in report.md', async () => {
    for (const [stage, label] of [
      ['pilot', 'PILOT'],
      ['demo', 'the model is scripted; these numbers demonstrate the harness'],
    ] as const) {
      const outDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-conclude-'))
      const { spec, plan, records } = inputs(stage)
      const conclusion = concludeExperiment({ experiment: spec, outDir, records, plan })
      expect(conclusion.text.toLowerCase()).toContain(label.toLowerCase())
      expect((await readFile(path.join(outDir, 'report.md'), 'utf8')).toLowerCase()).toContain(label.toLowerCase())
    }
  })

  test('a confirmatory run carries no label', async () => {
    const outDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-conclude-'))
    const { spec, plan, records } = inputs('confirmatory')
    concludeExperiment({ experiment: spec, outDir, records, plan })
    const markdown = await readFile(path.join(outDir, 'report.md'), 'utf8')
    expect(markdown).not.toMatch(/PILOT|DEMO|SMOKE|EXAMPLE/)
  })
})
