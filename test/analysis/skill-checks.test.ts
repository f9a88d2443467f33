import { describe, expect, test } from 'vitest'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { verdictBlock } from '../../src/analysis/render-terminal.ts'
import { expectedRuns } from '../../src/analysis/completeness.ts'
import { experimentRecords, run, settings, taskIds } from './records.ts'

const conditions = ['control', 'target', 'negative', 'full']
const skillSettings = settings({ control: 'control', treatments: ['target', 'full'], designChecks: ['negative'] })

describe('the skill design checks', () => {
  test('an irrelevant skill that changes nothing passes the negative-control check; full is set against target', () => {
    const { records, expected } = experimentRecords({
      tasks: 10,
      arms: conditions,
      change: (task, arm) => (arm === 'target' ? -0.3 : arm === 'full' ? -0.2 : task % 2 === 0 ? 0.004 : -0.004),
    })
    const report = analyzeRuns(records, skillSettings, expected)
    expect(report.skillChecks?.negativeControl).toMatchObject({ reference: 'control', arm: 'negative', tasks: 10, holds: true })
    const negative = report.skillChecks!.negativeControl!
    expect(negative.ci95[0]).toBeGreaterThan(-0.15)
    expect(negative.ci95[1]).toBeLessThan(0.15)
    const full = report.skillChecks!.fullVsTarget!
    expect(full).toMatchObject({ reference: 'target', arm: 'full', tasks: 10, holds: true })
    expect(full.medianRelativeChange).toBeGreaterThan(0.1)
    expect(verdictBlock(report)).toContain('check negative against control')
  })

  test('a small, consistent cost of an irrelevant skill (its listing line) still counts as near zero', () => {
    const { records, expected } = experimentRecords({ tasks: 10, arms: conditions, change: (_task, arm) => (arm === 'negative' ? 0.002 : -0.2) })
    expect(analyzeRuns(records, skillSettings, expected).skillChecks?.negativeControl?.holds).toBe(true)
  })

  test('an irrelevant skill that moves cost fails the negative-control check', () => {
    const { records, expected } = experimentRecords({ tasks: 10, arms: conditions, change: (_task, arm) => (arm === 'negative' ? 0.25 : -0.2) })
    const report = analyzeRuns(records, skillSettings, expected)
    expect(report.skillChecks?.negativeControl?.holds).toBe(false)
    expect(verdictBlock(report)).toContain('NOT as expected')
  })

  test('a design check never makes the verdict and is never in the claim family: only the negative control is cheaper, and the verdict is not supported', () => {
    const { records, expected } = experimentRecords({ tasks: 10, arms: conditions, change: (_task, arm) => (arm === 'negative' ? -0.4 : 0.1) })
    const report = analyzeRuns(records, skillSettings, expected)
    expect(report.comparisons.map((comparison) => comparison.treatment)).toEqual(['target', 'full'])
    expect(report.comparisons.every((comparison) => comparison.primary.family === 2)).toBe(true)
    expect(report.decision.verdict).toBe('not supported')
    expect(report.designChecks).toEqual(['negative'])
    expect(report.skillChecks?.negativeControl).toMatchObject({ arm: 'negative', holds: false })
  })

  test('the negative-control check keeps an infinite r (a free control the irrelevant skill made cost something): the check fails instead of dropping the task', () => {
    const ids = taskIds(6)
    const records = ids.flatMap((task, index) => [
      run(task, 'control', 1, index < 4 ? 0 : 1, 'solved'),
      run(task, 'target', 1, index < 4 ? 0 : 0.5, 'solved'),
      run(task, 'negative', 1, 1, 'solved'),
    ])
    const report = analyzeRuns(
      records,
      settings({ control: 'control', treatments: ['target'], designChecks: ['negative'] }),
      expectedRuns(ids, ['control', 'target', 'negative'], 1),
    )
    const negative = report.skillChecks!.negativeControl!
    expect(negative.tasks).toBe(6)
    expect(negative.medianRelativeChange).toBe(Infinity)
    expect(negative.ci95[1]).toBe(Infinity)
    expect(negative.holds).toBe(false)
  })

  test('the sanity condition (settings on, no skill) is checked against the control on the negative-control tasks only', () => {
    const ids = taskIds(8)
    const negativeTasks = new Set(ids.slice(6))
    const records = ids.flatMap((task, index) => [
      ...[1, 2].map((seed) => run(task, 'control', seed, 1 + index / 10, 'solved')),
      ...[1, 2].map((seed) => run(task, 'target', seed, (1 + index / 10) * 0.7, 'solved')),
      ...(negativeTasks.has(task) ? [1, 2].map((seed) => run(task, 'sanity', seed, 1 + index / 10, 'solved')) : []),
    ])
    const expected = [...expectedRuns(ids, ['control', 'target'], 2), ...expectedRuns([...negativeTasks], ['sanity'], 2)]
    const report = analyzeRuns(records, settings({ control: 'control', treatments: ['target'], designChecks: ['sanity'] }), expected)
    expect(report.complete).toBe(true)
    expect(report.skillChecks?.sanity).toMatchObject({ reference: 'control', arm: 'sanity', tasks: 2, medianRelativeChange: 0, holds: true })
    expect(verdictBlock(report)).toContain('check sanity against control')
  })

  test('experiments without skill conditions have no design checks', () => {
    const { records, expected } = experimentRecords({ tasks: 6, change: () => -0.2 })
    expect(analyzeRuns(records, settings(), expected).skillChecks).toBeNull()
  })
})
