import { expect, test } from 'vitest'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { reportDocument } from '../../src/analysis/document.ts'
import { renderMarkdown } from '../../src/analysis/render-markdown.ts'
import { holmAdjust } from '../../src/stats/holm.ts'
import { expectedRuns } from '../../src/analysis/completeness.ts'
import { experimentRecords, run, settings } from './records.ts'

const arms = ['baseline', 'skills', 'context', 'noise']
const changes: Record<string, number> = { skills: -0.25, context: 0, noise: 0.05 }

function threeTreatments() {
  return experimentRecords({
    tasks: 10,
    seeds: 2,
    arms,
    change: (task, arm) => changes[arm]! + ((task % 4) - 1.5) * 0.03,
  })
}

test('each arm against the control, Holm-adjusted: comparisons in spec order, per-arm verdicts', () => {
  const { records, expected } = threeTreatments()
  const report = analyzeRuns(records, settings({ treatments: ['skills', 'context', 'noise'] }), expected)
  expect(report.comparisons.map((comparison) => comparison.treatment)).toEqual(['skills', 'context', 'noise'])
  const raw = report.comparisons.map((comparison) => comparison.primary.p)
  expect(report.comparisons.map((comparison) => comparison.primary.pAdjusted)).toEqual(holmAdjust(raw))
  // Holm multiplies the smallest p by 3: the decision uses the adjusted p.
  expect(report.comparisons[0]!.primary.pAdjusted).toBeCloseTo(3 * raw[0]!, 12)
  expect(report.comparisons[0]!.decision.criteria!.wilcoxon.p).toBe(report.comparisons[0]!.primary.pAdjusted)
  expect(report.comparisons.map((comparison) => comparison.decision.verdict)).toEqual(['supported', 'not supported', 'not supported'])
})

test('top level with several arms: solved and secondary for every arm, the two-arm fields null, verdict supported when any arm is', () => {
  const { records, expected } = threeTreatments()
  const report = analyzeRuns(records, settings({ treatments: ['skills', 'context', 'noise'] }), expected)
  expect(report).toMatchObject({ primary: null, mcnemar: null, effect: null, power: null })
  expect(Object.keys(report.solved!)).toEqual(arms)
  expect(Object.keys(report.secondary!)).toEqual(arms)
  expect(report.decision).toEqual({ verdict: 'supported', supported: true, criteria: null })
  const markdown = renderMarkdown(reportDocument(report))
  expect(markdown).toContain('3 arms against baseline, Holm-adjusted: the claim is supported for skills.')
  expect(markdown).toContain('## noise against baseline')
})

test('with the winning arm left out, no arm is supported and the top-level verdict says so', () => {
  const { records, expected } = threeTreatments()
  const report = analyzeRuns(records, settings({ treatments: ['context', 'noise'] }), expected)
  expect(report.decision.verdict).toBe('not supported')
  expect(report.arms).toEqual(['baseline', 'context', 'noise'])
})

test('Holm can take a claim back: p = 0.042 supports the arm alone, but not as the best of three arms (3 × 0.042 > 0.05)', () => {
  const controls = [0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 6, 9]
  const toolCosts = [...controls.slice(0, 8).map((cost) => Math.round(cost * 0.7 * 1e6) / 1e6), 6.12, 9.18]
  const ids = controls.map((_, i) => String(i + 1).padStart(3, '0'))
  const records = ids.flatMap((task, i) => [
    run(task, 'baseline', 1, controls[i]!, 'solved'),
    run(task, 'tool', 1, toolCosts[i]!, 'solved'),
    run(task, 'other', 1, controls[i]! * (i % 2 === 0 ? 1.1 : 0.95), 'solved'),
    run(task, 'third', 1, controls[i]! * (i % 3 === 0 ? 0.9 : 1.05), 'solved'),
  ])
  const alone = analyzeRuns(records, settings({ treatments: ['tool'] }), expectedRuns(ids, ['baseline', 'tool'], 1))
  expect(alone.primary!.p).toBeCloseTo(43 / 1024, 12)
  expect(alone.decision.verdict).toBe('supported')
  const family = analyzeRuns(records, settings({ treatments: ['tool', 'other', 'third'] }), expectedRuns(ids, ['baseline', 'tool', 'other', 'third'], 1))
  const tool = family.comparisons[0]!
  expect(tool.primary.p).toBe(alone.primary!.p)
  expect(tool.primary.pAdjusted).toBeCloseTo((3 * 43) / 1024, 12)
  expect(tool.decision.verdict).toBe('not supported')
  expect(tool.decision.criteria).toMatchObject({ wilcoxon: { met: false }, interval: { met: true }, solved: { met: true } })
})
