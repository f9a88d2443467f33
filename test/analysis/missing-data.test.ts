import { describe, expect, test } from 'vitest'
import { expectedRuns } from '../../src/analysis/completeness.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { verdictBlock } from '../../src/analysis/render-terminal.ts'
import { experimentRecords, run, settings } from './records.ts'

const complete = () => experimentRecords({ tasks: 6, seeds: 3, change: () => -0.2 })

describe('the missing-data rule', () => {
  test('a timeout is a recorded run: unsolved, charged the budget cap even when its record says less', () => {
    const { records, expected } = complete()
    const index = records.findIndex((record) => record.task === '002' && record.arm === 'tool' && record.seed === 2)
    records[index] = run('002', 'tool', 2, 0.123, 'timeout')
    const report = analyzeRuns(records, settings({ budgetUsd: 5 }), expected)
    expect(report.complete).toBe(true)
    const task = report.comparisons[0]!.perTask.find((pair) => pair.task === '002')!
    const others = records.filter((record) => record.task === '002' && record.arm === 'tool' && record.seed !== 2)
    expect(task.treatment.meanCostUsd).toBeCloseTo((others[0]!.costUsd + others[1]!.costUsd + 5) / 3, 9)
    expect(task.treatment.solvedSeeds).toBe(2)
    expect(report.secondary!.tool!.timeouts).toBe(1)
  })

  test('one run missing: no verdict, nothing computed, the run named', () => {
    const { records, expected } = complete()
    const kept = records.filter((record) => !(record.task === '004' && record.arm === 'baseline' && record.seed === 3))
    const report = analyzeRuns(kept, settings(), expected)
    expect(report).toMatchObject({ complete: false, missing: 1, primary: null, effect: null, mcnemar: null, power: null, comparisons: [] })
    expect(report.decision).toEqual({ verdict: 'no verdict', supported: false, criteria: null })
    expect(report.missingRuns).toEqual([{ task: '004', arm: 'baseline', seeds: [3] }])
    expect(verdictBlock(report)).toContain('No verdict: 1 of 36 planned runs are missing.')
    expect(verdictBlock(report)).toContain('missing: 004 › baseline › seed 3')
  })

  test('a (task, arm) with a different set of seeds than the others is refused, whichever seed is extra', () => {
    const { records, expected } = complete()
    const extra = [...records, run('001', 'tool', 4, 0.5, 'solved')]
    const report = analyzeRuns(extra, settings(), expected)
    expect(report.complete).toBe(false)
    expect(report.missing).toBe(0)
    expect(report.unexpectedRuns).toEqual([{ task: '001', arm: 'tool', seeds: [4] }])
    expect(report.decision.verdict).toBe('no verdict')
    expect(verdictBlock(report)).toContain('1 recorded run(s) are not in the plan (001 › tool › seed 4)')
  })

  test('an arm with no runs at all is named as missing', () => {
    const { records, expected } = complete()
    const report = analyzeRuns(
      records.filter((record) => record.arm === 'tool'),
      settings(),
      expected,
    )
    expect(report.armsWithoutRuns).toEqual(['baseline'])
    expect(report.missing).toBe(18)
    expect(verdictBlock(report)).toContain('Arm baseline (the control) has no recorded runs.')
  })

  test('a task the plan holds but nobody ran is missing in every arm', () => {
    const { records } = complete()
    const expected = expectedRuns(['001', '002', '003', '004', '005', '006', '007'], ['baseline', 'tool'], 3)
    const report = analyzeRuns(records, settings(), expected)
    expect(report.missingRuns).toEqual([
      { task: '007', arm: 'baseline', seeds: [1, 2, 3] },
      { task: '007', arm: 'tool', seeds: [1, 2, 3] },
    ])
  })

  test('runs of arms outside the analysis (another treatment) neither count nor block', () => {
    const { records, expected } = complete()
    const report = analyzeRuns([...records, run('001', 'other', 1, 1, 'solved')], settings(), expected)
    expect(report.complete).toBe(true)
    expect(report.arms).toEqual(['baseline', 'tool'])
  })
})

describe('records the analysis refuses outright', () => {
  test('runs of another experiment', () => {
    const { records, expected } = complete()
    expect(() => analyzeRuns([...records, { ...run('001', 'tool', 9, 1, 'solved'), experiment: 'other' }], settings(), expected)).toThrow(
      /001 › tool › seed 9 belongs to experiment "other", not "exp"/,
    )
  })
  test('runs recorded under two specs', () => {
    const { records, expected } = complete()
    records[0] = { ...records[0]!, specSha256: 'b'.repeat(64) }
    expect(() => analyzeRuns(records, settings(), expected)).toThrow(/recorded under 2 different specs \(aaaaaaaaaaaa, bbbbbbbbbbbb\)/)
  })
  test('a record whose solved flag contradicts its outcome', () => {
    const { records, expected } = complete()
    records[3] = { ...records[3]!, solved: false }
    expect(() => analyzeRuns(records, settings(), expected)).toThrow(/outcome "solved" but solved false/)
  })
})
