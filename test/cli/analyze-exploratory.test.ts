import { describe, expect, test } from 'vitest'
import { normaliseExperiment } from '../../src/experiment/hash.ts'
import { parseExperiment } from '../../src/experiment/parse.ts'
import { planRuns } from '../../src/runs/plan.ts'
import { experimentRecords, taskIds } from '../analysis/records.ts'
import { cli, cheaperRecords, outputFolder } from './analyze-fixture.ts'

/** A pre-registered 3-arm pilot: baseline, a (about 25% cheaper) and b (about 3% cheaper), 12 tasks, 3 seeds. */
async function threeArmFolder(): Promise<string> {
  const experiment = normaliseExperiment(
    parseExperiment({ name: 'exp', stage: 'pilot', agent: { kind: 'noop' }, arms: { baseline: {}, a: {}, b: {} }, control: 'baseline', seeds: 3, budgetUsd: 2 }, 'experiment.ts'),
  )
  const { records } = experimentRecords({ tasks: 12, arms: ['baseline', 'a', 'b'], change: (task, arm) => (arm === 'a' ? -0.25 + (task % 4) * 0.03 : -0.03 + (task % 3) * 0.02) })
  const plan = planRuns(
    taskIds(12).map((id) => ({ id, arms: ['baseline', 'a', 'b'] })),
    3,
    1,
  )
  return outputFolder(records, { experiment, plan })
}

describe('pre-registered versus exploratory', () => {
  test('a 3-arm spec: the default analysis is the pre-registered one, Holm over the claim family {a, b}', async () => {
    const dir = await threeArmFolder()
    const result = await cli(['analyze', dir, '--json'])
    expect(result.exitCode, result.all).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report.analysis).toEqual({ kind: 'pre-registered', departures: [], completenessChecked: true })
    const a = report.comparisons[0]
    expect(a.treatment).toBe('a')
    expect(a.primary.pAdjusted).toBeGreaterThan(a.primary.p)
    expect(a.decision.criteria.wilcoxon.p).toBe(a.primary.pAdjusted)
    const markdown = (await cli(['analyze', dir])).stdout
    expect(markdown).not.toContain('EXPLORATORY')
    expect(markdown).toContain('Decision rule (pre-registered)')
  })

  test('--treatment a: labelled EXPLORATORY in every output with what departed, its p is not the Holm-adjusted one, and nothing calls it confirmatory', async () => {
    const dir = await threeArmFolder()
    const preRegistered = JSON.parse((await cli(['analyze', dir, '--json'])).stdout)
    const json = await cli(['analyze', dir, '--json', '--treatment', 'a'])
    expect(json.exitCode, json.all).toBe(0)
    const report = JSON.parse(json.stdout)
    expect(report.analysis.kind).toBe('exploratory')
    expect(report.analysis.departures).toEqual(['--treatment a: only a against baseline, p not Holm-adjusted over the pre-registered claim family (a, b)'])
    expect(report.decision.criteria.wilcoxon.p).toBe(preRegistered.comparisons[0].primary.p)
    expect(report.decision.criteria.wilcoxon.p).not.toBe(preRegistered.comparisons[0].primary.pAdjusted)
    expect(json.stderr).toContain('EXPLORATORY: not the pre-registered analysis: --treatment a')
    const markdown = await cli(['analyze', dir, '--treatment', 'a'])
    expect(markdown.stdout).toContain("> **EXPLORATORY.** This is not the pre-registered analysis and its verdict is not the experiment's: --treatment a")
    for (const text of [json.stdout, markdown.stdout]) expect(text.toLowerCase()).not.toContain('confirmatory')
    // The default analysis is unchanged by having run an exploratory one.
    expect(JSON.parse((await cli(['analyze', dir, '--json'])).stdout)).toEqual(preRegistered)
  })

  test("--alpha is a departure too, named with the pre-registered value; the same value as the spec's is not", async () => {
    const dir = await outputFolder(cheaperRecords().records)
    const other = JSON.parse((await cli(['analyze', dir, '--json', '--alpha', '0.1'])).stdout)
    expect(other.analysis).toMatchObject({ kind: 'exploratory', departures: ['--alpha 0.1 (pre-registered 0.05)'] })
    const same = JSON.parse((await cli(['analyze', dir, '--json', '--alpha', '0.05'])).stdout)
    expect(same.analysis.kind).toBe('pre-registered')
  })
})
