import { describe, expect, test } from 'vitest'
import { decide } from '../../src/analysis/decision.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { recordsFromTable, settings, type TaskRow } from './records.ts'

// The pre-registered rule: supported iff p < α, the interval's upper bound < 0, and
// solved(treatment) ≥ solved(control) − margin. Each test changes one criterion only and
// checks that the other two did not move.

const passing = { p: 0.01, alpha: 0.05, intervalUpper: -0.05, solvedTreatment: 18, solvedControl: 18, margin: 1 }

describe('decide: each criterion alone flips the verdict', () => {
  test('all three met: supported', () => {
    expect(decide(passing)).toMatchObject({ verdict: 'supported', supported: true })
  })
  test('p not below α (p = α is not enough)', () => {
    const decision = decide({ ...passing, p: 0.05 })
    expect(decision.verdict).toBe('not supported')
    expect(decision.criteria).toMatchObject({ wilcoxon: { met: false }, interval: { met: true }, solved: { met: true } })
  })
  test('interval upper bound not below zero (0 is not enough)', () => {
    const decision = decide({ ...passing, intervalUpper: 0 })
    expect(decision.verdict).toBe('not supported')
    expect(decision.criteria).toMatchObject({ wilcoxon: { met: true }, interval: { met: false }, solved: { met: true } })
  })
  test('treatment solves more than the margin fewer (16 vs 18, margin 1); exactly the margin fewer is still met', () => {
    expect(decide({ ...passing, solvedTreatment: 17 }).verdict).toBe('supported')
    const decision = decide({ ...passing, solvedTreatment: 16 })
    expect(decision.verdict).toBe('not supported')
    expect(decision.criteria).toMatchObject({ wilcoxon: { met: true }, interval: { met: true }, solved: { met: false } })
  })
})

/**
 * Ten tasks. Eight get 30% cheaper with the tool; two get 2% dearer. By |d| the two dearer
 * ones rank 4 and 6, so V = 10 and p = P(V ≤ 10 | n = 10) = 43/1024 = 0.042.
 */
function tenTasks(dearerFirstD = 0.12): TaskRow[] {
  const cheaper = [0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0].map((control) => ({ control, treatment: Math.round(control * 0.7 * 1e6) / 1e6 }))
  return [...cheaper, { control: 6, treatment: 6 + dearerFirstD }, { control: 9, treatment: 9.18 }]
}

describe('analyzeRuns: the same three flips on recorded runs', () => {
  test('baseline data: all three criteria met, supported', () => {
    const { records, expected } = recordsFromTable(tenTasks())
    const report = analyzeRuns(records, settings(), expected)
    expect(report.primary).toMatchObject({ statistic: 10, n: 10 })
    expect(report.primary!.p).toBeCloseTo(43 / 1024, 12)
    expect(report.decision.verdict).toBe('supported')
  })

  test('primary: one dearer task a little dearer moves its rank from 4 to 5, V = 11, p = 54/1024 = 0.053 ≥ 0.05: not supported', () => {
    const { records, expected } = recordsFromTable(tenTasks(0.16))
    const report = analyzeRuns(records, settings(), expected)
    expect(report.primary).toMatchObject({ statistic: 11, n: 10 })
    expect(report.primary!.p).toBeCloseTo(54 / 1024, 12)
    expect(report.decision.verdict).toBe('not supported')
    expect(report.decision.criteria).toMatchObject({ wilcoxon: { met: false }, interval: { met: true }, solved: { met: true } })
  })

  test('primary, by the threshold: the same data at α = 0.04 is not supported', () => {
    const { records, expected } = recordsFromTable(tenTasks())
    const report = analyzeRuns(records, settings({ alpha: 0.04 }), expected)
    expect(report.decision.verdict).toBe('not supported')
    expect(report.decision.criteria).toMatchObject({ wilcoxon: { met: false }, interval: { met: true }, solved: { met: true } })
  })

  test('effect: cheap tasks 30% dearer drag the interval above zero while the ranks of their tiny d keep p small', () => {
    // Seven expensive tasks 20% cheaper (large |d|), then k tiny tasks 30% dearer (|d| ranks 1..k).
    const rows = (dearer: number): TaskRow[] => [
      ...[1, 1.2, 1.4, 1.6, 1.8, 2, 2.2].map((control) => ({ control, treatment: Math.round(control * 0.8 * 1e6) / 1e6 })),
      ...Array.from({ length: 5 }, (_, i) => {
        const control = 0.01 + i * 0.001
        return { control, treatment: i < dearer ? Math.round(control * 1.3 * 1e6) / 1e6 : Math.round(control * 0.8 * 1e6) / 1e6 }
      }),
    ]
    const three = recordsFromTable(rows(3))
    const failing = analyzeRuns(three.records, settings({ resamples: 10_000 }), three.expected)
    expect(failing.decision.verdict).toBe('not supported')
    expect(failing.decision.criteria).toMatchObject({ wilcoxon: { met: true }, interval: { met: false }, solved: { met: true } })
    expect(failing.effect!.ci95[1]).toBeGreaterThan(0)

    const two = recordsFromTable(rows(2))
    const passingReport = analyzeRuns(two.records, settings({ resamples: 10_000 }), two.expected)
    expect(passingReport.decision.verdict).toBe('supported')
    expect(passingReport.effect!.ci95[1]).toBeLessThan(0)
  })

  test('solved: the tool failing two more tasks than the control (majority of seeds) is not supported; one more is within the margin', () => {
    const withUnsolved = (count: number) => tenTasks().map((row, index) => (index < count ? { ...row, treatmentUnsolvedSeeds: 2 } : row))
    const one = recordsFromTable(withUnsolved(1))
    expect(analyzeRuns(one.records, settings(), one.expected).decision.verdict).toBe('supported')
    const two = recordsFromTable(withUnsolved(2))
    const report = analyzeRuns(two.records, settings(), two.expected)
    expect(report.solved).toEqual({ baseline: 10, tool: 8 })
    expect(report.decision.verdict).toBe('not supported')
    expect(report.decision.criteria).toMatchObject({ wilcoxon: { met: true }, interval: { met: true }, solved: { treatment: 8, control: 10, margin: 1, met: false } })
    expect(report.mcnemar).toEqual({ b: 0, c: 2, p: 0.5 })
  })
})
