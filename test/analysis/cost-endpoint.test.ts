import { describe, expect, test } from 'vitest'
import { costsDisagree, costSummary } from '../../src/analysis/cost-summary.ts'
import { renderReportFiles } from '../../src/analysis/conclude.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import type { RecordedRun } from '../../src/runs/record.ts'
import { experimentRecords, settings } from './records.ts'

// The cost endpoint is pre-registered (`decision.cost`): by default the harness's metered cost where a run was
// metered. A treatment that under-reports its own cost looks cheaper only to an analysis that believes it.

const metered = (costUsd: number) => ({ requests: 3, tokens: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 }, costUsd, models: ['claude-sonnet-4-5'] })

/** Every arm really costs the same; the treatment's agent reports 40% less than the gateway counted. */
function underReporting(): { records: RecordedRun[]; expected: ReturnType<typeof experimentRecords>['expected'] } {
  const { records, expected } = experimentRecords({ tasks: 10, change: () => 0 })
  return {
    expected,
    records: records.map((record) => ({ ...record, metered: metered(record.costUsd), costUsd: record.arm === 'tool' ? record.costUsd * 0.6 : record.costUsd })),
  }
}

describe('which cost the analysis uses', () => {
  test('metered (the default): the under-reported saving is not there, and every under-reporting run is listed as cost-disagrees', () => {
    const { records, expected } = underReporting()
    const report = analyzeRuns(records, settings(), expected)
    expect(report.decision.supported).toBe(false)
    expect(report.parameters.cost).toBe('metered')
    expect(report.cost.meteredRuns).toBe(records.length)
    expect(report.cost.disagreements).toHaveLength(30)
    expect(report.cost.disagreements.every((run) => run.arm === 'tool' && run.agentUsd < run.meteredUsd)).toBe(true)
    const markdown = renderReportFiles(report, records)['report.md']
    expect(markdown).toContain('COST DISAGREES')
    expect(markdown).toMatch(/\|\s*outcome\s*\|\s*agent cost\s*\|\s*metered cost\s*\|/)
    expect(markdown).toMatch(/\|\s*tool\s*\|\s*1\s*\|\s*solved\s*\|\s*\$[\d.]+\s*\|\s*\$[\d.]+ cost-disagrees\s*\|/)
    expect(markdown).toContain('The cost endpoint is the metered cost (pre-registered)')
    expect(markdown).toMatch(/30 run\(s\) cost-disagrees/)
    const json = JSON.parse(renderReportFiles(report, records)['report.json']) as { cost: { endpoint: string; disagreements: unknown[] } }
    expect(json.cost.endpoint).toBe('metered')
    expect(json.cost.disagreements).toHaveLength(30)
  })

  test("agent (pre-registered so): the agent's report is the cost, and the disagreements are still listed", () => {
    const { records, expected } = underReporting()
    const report = analyzeRuns(records, settings({ cost: 'agent' }), expected)
    expect(report.decision.supported).toBe(true)
    expect(report.cost.endpoint).toBe('agent')
    expect(report.cost.disagreements).toHaveLength(30)
  })

  test('a run without a metered cost is costed from its own report under either endpoint', () => {
    const { records, expected } = experimentRecords({ tasks: 10, change: () => -0.4 })
    const byMetered = analyzeRuns(records, settings(), expected)
    const byAgent = analyzeRuns(records, settings({ cost: 'agent' }), expected)
    expect(byMetered.decision.supported).toBe(true)
    expect(byMetered.comparisons[0]!.effect).toEqual(byAgent.comparisons[0]!.effect)
    expect(byMetered.cost).toEqual({ endpoint: 'metered', meteredRuns: 0, unmeteredRuns: records.length, disagreements: [] })
  })
})

describe('when two costs disagree', () => {
  test('more than 1% of the larger, or more than a cent, whichever is smaller', () => {
    expect(costsDisagree(0.1977, 0.000123)).toBe(true)
    expect(costsDisagree(0.1, 0.0995)).toBe(false) // 0.5%
    expect(costsDisagree(0.1, 0.098)).toBe(true) // 2%
    expect(costsDisagree(5, 4.985)).toBe(true) // 0.3%, but 1.5 cents
    expect(costsDisagree(5, 4.995)).toBe(false)
    expect(costsDisagree(0.0261, 0.0261 + 1e-15)).toBe(false)
  })

  test('a timeout is charged the budget cap either way, so it is not compared', () => {
    const records: RecordedRun[] = [
      {
        experiment: 'exp',
        specSha256: 'a'.repeat(64),
        task: '001',
        arm: 'tool',
        seed: 1,
        outcome: 'timeout',
        solved: false,
        costUsd: 2,
        costSource: 'budget-cap',
        metered: metered(0.3),
      },
    ]
    expect(costSummary(records, ['tool']).disagreements).toEqual([])
  })
})
