import { describe, expect, test } from 'vitest'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { verdictBlock } from '../../src/analysis/render-terminal.ts'
import { experimentRecords, settings } from './records.ts'

const conditions = ['control', 'target', 'negative', 'full']
const skillSettings = settings({ control: 'control', treatments: ['target', 'negative', 'full'] })

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

  test('experiments without skill conditions have no design checks', () => {
    const { records, expected } = experimentRecords({ tasks: 6, change: () => -0.2 })
    expect(analyzeRuns(records, settings(), expected).skillChecks).toBeNull()
  })
})
