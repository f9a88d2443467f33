import { describe, expect, test } from 'vitest'
import { reportDocument } from '../../src/analysis/document.ts'
import { renderMarkdown } from '../../src/analysis/render-markdown.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { verdictBlock } from '../../src/analysis/render-terminal.ts'
import { experimentRecords, recordsFromTable, settings } from './records.ts'

describe("the exact test's floor", () => {
  test('4 tasks, every cost halved: p = 0.0625 is the best the test can do, and the report says the design cannot support the claim at n = 4; it needs n ≥ 5', () => {
    const { records, expected } = recordsFromTable([1, 2, 3, 4].map((cost) => ({ control: cost, treatment: cost / 2 })))
    const report = analyzeRuns(records, settings(), expected)
    expect(report.primary).toMatchObject({ p: 0.0625, n: 4, minimumP: 0.0625 })
    expect(report.decision.verdict).toBe('not supported')
    const sentence = 'this design cannot support the claim at n = 4; it needs n ≥ 5.'
    expect(verdictBlock(report)).toContain(sentence)
    expect(renderMarkdown(reportDocument(report))).toContain(sentence)
  })

  test('an interval wholly below zero held back only by the floor: the verdict says the cost fell and the exact test cannot reach α, never "no cost reduction shown"', () => {
    const { records, expected } = recordsFromTable([1, 2, 3, 4].map((cost) => ({ control: cost, treatment: cost / 2 })))
    const report = analyzeRuns(records, settings(), expected)
    expect(report.effect!.ci95[1]).toBeLessThan(0)
    const sentence = 'The cost fell (the whole interval is below zero), but with n = 4 task(s) the exact test cannot reach p < 0.05.'
    expect(verdictBlock(report)).toContain(sentence)
    expect(renderMarkdown(reportDocument(report))).toContain(sentence)
    expect(verdictBlock(report)).not.toContain('No cost reduction shown')
  })

  test('5 tasks all halved reach p = 0.03125 < 0.05: no floor sentence', () => {
    const { records, expected } = recordsFromTable([1, 2, 3, 4, 5].map((cost) => ({ control: cost, treatment: cost / 2 })))
    const report = analyzeRuns(records, settings(), expected)
    expect(report.primary).toMatchObject({ p: 0.03125, minimumP: 0.03125 })
    expect(verdictBlock(report)).not.toContain('cannot support the claim')
  })

  test('Holm over 3 claim arms raises the floor: 6 tasks are too few (3 · 2⁻⁶ ≥ 0.05), the report says it needs n ≥ 6 → 7', () => {
    const { records, expected } = experimentRecords({ tasks: 6, seeds: 1, arms: ['baseline', 'a', 'b', 'c'], change: () => -0.5 })
    const report = analyzeRuns(records, settings({ treatments: ['a', 'b', 'c'] }), expected)
    for (const comparison of report.comparisons) {
      expect(comparison.primary).toMatchObject({ n: 6, family: 3, minimumP: 3 / 64, tasksForAlpha: 6 })
    }
    const { records: fewer, expected: fewerExpected } = experimentRecords({ tasks: 5, seeds: 1, arms: ['baseline', 'a', 'b', 'c'], change: () => -0.5 })
    const small = analyzeRuns(fewer, settings({ treatments: ['a', 'b', 'c'] }), fewerExpected)
    expect(verdictBlock(small)).toContain('Holm over 3 claim arms is 0.09375 ≥ α = 0.05: this design cannot support the claim at n = 5; it needs n ≥ 6.')
  })

  test('power never recommends fewer tasks than the floor: σ ≈ 0.05 sizes to 1 task by the formula, raised to 5', () => {
    const { records, expected } = experimentRecords({ tasks: 8, seeds: 1, change: (task) => -0.3 + (task % 2 === 0 ? 0.05 : -0.05) })
    const report = analyzeRuns(records, settings(), expected)
    const power = report.comparisons[0]!.power
    expect(power.sigma).toBeGreaterThan(0.04)
    expect(power.sigma).toBeLessThan(0.07)
    expect(power.formulaTasks).toBe(1)
    expect(power.tasksNeeded).toBe(5)
    expect(renderMarkdown(reportDocument(report))).toContain('raised to 5, the fewest with which the exact test can reach α')
  })
})
