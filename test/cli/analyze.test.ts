import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { concludeExperiment as conclude, type ConcludeInput } from '../../src/analysis/conclude.ts'
import { writeConclusion } from '../../src/runs/report-files.ts'
import { planRuns } from '../../src/runs/plan.ts'
import { taskIds } from '../analysis/records.ts'
import { cheaperRecords, cli, fixtureExperiment, outputFolder } from './analyze-fixture.ts'

/** What the reporter does when a suite ends: the analysis concludes (pure), then `runs/` writes its files. */
function concludeExperiment(input: ConcludeInput & { readonly outDir: string }) {
  const conclusion = conclude(input)
  return { ...conclusion, ...writeConclusion(input.outDir, conclusion) }
}

describe('task-outcome analyze', () => {
  test('an output folder: the readable report with the verdict sentence and the pilot label; exit 0', async () => {
    const dir = await outputFolder(cheaperRecords().records)
    const result = await cli(['analyze', dir])
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toContain('> **PILOT.** Exploratory')
    expect(result.stdout).toContain('**Verdict: supported.** Supported: "tool lowers the agent\'s cost per task without lowering its solve rate (against baseline)".')
    expect(result.stdout).toMatch(/\| Wilcoxon signed-rank p \(one-sided, exact\) +\| 2\.44e-4 +\| < 0\.05 +\| yes \|/)
    expect(result.stdout).toContain('## Per task')
    expect(result.stderr).toContain('analysing 72 run(s)')
  })

  test('--json prints exactly the report.json the reporter writes for the same runs', async () => {
    const { records } = cheaperRecords()
    const dir = await outputFolder(records)
    const plan = planRuns(
      taskIds(12).map((id) => ({ id, arms: ['baseline', 'tool'] })),
      3,
      1,
    )
    const reporterDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-reporter-'))
    concludeExperiment({ experiment: fixtureExperiment(), outDir: reporterDir, records, plan })
    const result = await cli(['analyze', path.join(dir, 'runs.jsonl'), '--json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(`${result.stdout}\n`).toBe(await readFile(path.join(reporterDir, 'report.json'), 'utf8'))
  })

  test('incomplete data: still prints the report (complete false, no verdict, what is missing) and exits 1', async () => {
    const { records } = cheaperRecords()
    const dir = await outputFolder(records.filter((record) => !(record.task === '007' && record.arm === 'tool' && record.seed === 2)))
    const result = await cli(['analyze', dir, '--json'])
    expect(result.exitCode).toBe(1)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({ complete: false, missing: 1, decision: { verdict: 'no verdict' }, missingRuns: [{ task: '007', arm: 'tool', seeds: [2] }] })
  })

  test('a malformed line is refused naming the file, the line and the field', async () => {
    const { records } = cheaperRecords()
    const dir = await outputFolder(records)
    const lines = (await readFile(path.join(dir, 'runs.jsonl'), 'utf8')).split('\n')
    lines[2] = lines[2]!.replace(/"costUsd":[0-9.]+/, '"costUsd":"cheap"')
    await writeFile(path.join(dir, 'runs.jsonl'), lines.join('\n'))
    const result = await cli(['analyze', dir])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/runs\.jsonl:3: field costUsd: /)
  })

  test('a file with one arm says which arm is missing', async () => {
    const toolOnly = cheaperRecords().records.filter((record) => record.arm === 'tool')
    const withSpec = await cli(['analyze', await outputFolder(toolOnly)])
    expect(withSpec.exitCode).toBe(1)
    expect(withSpec.stdout).toContain('Arm baseline (the control) has no recorded runs.')
    expect(withSpec.stdout).toContain('No verdict: 36 of 72 planned runs are missing.')
    const bare = await cli(['analyze', path.join(await outputFolder(toolOnly, { spec: false }), 'runs.jsonl'), '--no-plan'])
    expect(bare.exitCode).toBe(1)
    expect(bare.stderr).toContain('holds runs of one arm only (tool); the other arm is missing')
  })

  test('flags override the spec: a stricter alpha turns the verdict', async () => {
    const dir = await outputFolder(cheaperRecords().records)
    const result = await cli(['analyze', dir, '--json', '--alpha', '0.0001', '--resamples', '500', '--seed', '3'])
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      decision: { verdict: 'not supported', criteria: { wilcoxon: { alpha: 0.0001, met: false } } },
      effect: { resamples: 500, seed: 3 },
    })
  })

  test('--help explains the rule, the inputs and the exit status; a bad flag value is refused', async () => {
    const help = await cli(['analyze', '--help'])
    expect(help.stdout).toContain('supported iff p < alpha')
    expect(help.stdout).toContain('--treatment <arm>')
    expect(help.stdout).toContain('exits 1')
    const bad = await cli(['analyze', '.', '--alpha', '2'])
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr).toContain('--alpha must be a number between 0 and 1')
  })
})
