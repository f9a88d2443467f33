import { describe, expect, test } from 'vitest'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { resolveDesign, sequentialAnalysis } from '../../src/analysis/sequential.ts'
import { verdictBlock } from '../../src/analysis/render-terminal.ts'
import { SequentialSchema } from '../../src/experiment/schema.ts'
import { wilcoxonSignedRank } from '../../src/stats/wilcoxon.ts'
import { experimentRecords, settings } from './records.ts'

const design = (input: unknown) => SequentialSchema.parse(input)

describe('a sequential design applied to recorded runs', () => {
  test('looks as fractions round up to task counts; counts must end at the planned tasks', () => {
    expect(resolveDesign(design({ looks: [0.5, 1] }), 9).looks).toEqual([5, 9])
    expect(resolveDesign(design({ looks: [1 / 3, 2 / 3, 1] }), 12).looks).toEqual([4, 8, 12])
    expect(() => resolveDesign(design({ looks: [4, 8] }), 10)).toThrow(/the last look is at 8 tasks, but the plan has 10/)
    expect(() => resolveDesign(design({ looks: [0.1, 0.2, 1] }), 3)).toThrow(/fall on the same task count/)
  })

  test('a large effect stops at the first look for efficacy: the verdict rests on its tasks, the rest are skipped, nothing is missing', () => {
    const { records, expected } = experimentRecords({ tasks: 24, change: () => -0.4 })
    const firstHalf = new Set(expected.map((run) => run.task).filter((task) => Number(task) <= 12))
    const recorded = records.filter((record) => firstHalf.has(record.task))
    const report = analyzeRuns(recorded, settings({ sequential: design({ looks: [0.5, 1] }) }), expected)
    expect(report.complete).toBe(true)
    expect(report.missing).toBe(0)
    expect(report.sequential).toMatchObject({ stoppedAt: 1, stoppedFor: 'efficacy', pendingLook: null, skippedRuns: 12 * 2 * 3, recordedAfterStop: 0 })
    expect(report.decision.verdict).toBe('supported')
    const look = report.sequential!.looks[0]!
    // The look's p is the fixed design's exact test on its 12 tasks: 2⁻¹², past the O'Brien–Fleming boundary at ½.
    expect(look.p).toBe(wilcoxonSignedRank(report.comparisons[0]!.perTask.map((pair) => pair.d)).p)
    expect(look.p).toBe(2 ** -12)
    expect(look.crossed).toBe(true)
    expect(look.spent).toBeLessThanOrEqual(look.allowed)
    expect(report.sequential!.adjustedP).toBe(2 ** -12)
    expect(look.interval.confidence).toBeGreaterThan(0.95)
    expect(report.tasks).toBe(12)
    expect(verdictBlock(report)).toContain('stopped at look 1 of 2: efficacy; 72 planned run(s) of the later tasks skipped, never run, never paid for')
  })

  test('with the first block incomplete no look is taken: no verdict, and the missing runs are named as for a fixed design', () => {
    const { records, expected } = experimentRecords({ tasks: 24, change: () => -0.4 })
    const report = analyzeRuns(records.slice(1), settings({ sequential: design({ looks: [0.5, 1] }) }), expected)
    expect(report.sequential).toMatchObject({ stoppedAt: null, pendingLook: 1, adjustedP: null })
    expect(report.decision.verdict).toBe('no verdict')
    expect(report.complete).toBe(false)
  })

  test('a cost increase with a conditional-power futility rule stops at the first look for futility: not supported', () => {
    const { records, expected } = experimentRecords({ tasks: 24, change: (task) => (task % 2 === 0 ? 0.25 : -0.1) })
    const report = analyzeRuns(records, settings({ sequential: design({ looks: [0.5, 1], futility: { conditionalPower: 0.5 } }) }), expected)
    expect(report.sequential).toMatchObject({ stoppedAt: 1, stoppedFor: 'futility' })
    expect(report.sequential!.looks[0]!.futility).toMatchObject({ rule: 'conditional power', met: true })
    // The runs recorded after the stop are kept and not analysed.
    expect(report.sequential!.recordedAfterStop).toBe(72)
    expect(report.decision.verdict).toBe('not supported')
  })

  test('crossing the boundary is not enough: an interval that includes zero, or too few solved, lets the next block run', () => {
    const { records, expected } = experimentRecords({ tasks: 24, change: () => -0.4, unsolved: (task, arm) => arm === 'tool' && task < 6 })
    const analysis = sequentialAnalysis(records, settings({ sequential: design({ looks: [0.5, 1] }) }), expected, 'tool')
    expect(analysis.looks[0]).toMatchObject({ crossed: true, action: 'continue', solved: { met: false } })
    expect(analysis.looks[1]!.action).toBe('final')
    expect(analysis.stoppedAt).toBeNull()
  })

  test('an interim look spends only what α(t) allows at its fraction, whether or not later looks are known yet', () => {
    const { records, expected } = experimentRecords({ tasks: 24, change: (task) => (task % 3 === 0 ? 0.05 : -0.1) })
    const analysis = sequentialAnalysis(records, settings({ sequential: design({ looks: [0.5, 1] }) }), expected, 'tool')
    expect(analysis.looks[0]!.allowed).toBeCloseTo(0.0055746, 6)
    expect(analysis.looks[0]!.spent).toBeLessThanOrEqual(analysis.looks[0]!.allowed)
  })

  test('the last look with no effect: the whole plan analysed, not supported, the adjusted p at least the look p', () => {
    const { records, expected } = experimentRecords({ tasks: 20, change: (task) => (task % 3 === 0 ? 0.05 : -0.03) })
    const report = analyzeRuns(records, settings({ sequential: design({ looks: [0.5, 1], spending: 'pocock' }) }), expected)
    const last = report.sequential!.looks.at(-1)!
    expect(last.action).toBe('final')
    expect(report.sequential!.adjustedP!).toBeGreaterThanOrEqual(last.p)
    expect(report.tasks).toBe(20)
  })
})
