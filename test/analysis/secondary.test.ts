import { expect, test } from 'vitest'
import { expectedRuns } from '../../src/analysis/completeness.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { run, settings } from './records.ts'

test('per arm: cost per solved task, timeouts, and run measures (median and mean) over the runs that carry them', () => {
  const records = [
    run('001', 'baseline', 1, 1, 'solved', { toolCallsBeforeFirstEdit: 10, turns: 20, wallMs: 30_000, goldFileTouched: true }),
    run('001', 'baseline', 2, 3, 'solved', { toolCallsBeforeFirstEdit: 6, turns: 10, wallMs: 10_000, goldFileTouched: false }),
    run('002', 'baseline', 1, 2, 'unsolved', { toolCallsBeforeFirstEdit: null, turns: null, wallMs: 5_000, goldFileTouched: null }),
    run('002', 'baseline', 2, 2, 'timeout', { wallMs: 900_000 }),
    run('001', 'tool', 1, 1, 'solved', { toolCallsBeforeFirstEdit: 2, turns: 8, wallMs: 20_000 }),
    run('001', 'tool', 2, 1, 'solved', { toolCallsBeforeFirstEdit: 4, turns: 12, wallMs: 20_000 }),
    run('002', 'tool', 1, 1, 'solved', { toolCallsBeforeFirstEdit: 3, turns: 9, wallMs: 20_000 }),
    run('002', 'tool', 2, 1, 'solved', { toolCallsBeforeFirstEdit: 3, turns: 9, wallMs: 20_000 }),
  ]
  const report = analyzeRuns(records, settings({ budgetUsd: 4 }), expectedRuns(['001', '002'], ['baseline', 'tool'], 2))
  const baseline = report.secondary!.baseline!
  // Task means: 001 = 2, 002 = (2 + 4 at the cap) / 2 = 3; one task solved.
  expect(baseline).toMatchObject({ tasks: 2, solvedTasks: 1, runs: 4, solvedRuns: 2, timeouts: 1, totalCostUsd: 5, costPerSolvedTaskUsd: 5 })
  expect(baseline.toolCallsBeforeFirstEdit).toEqual({ mean: 8, median: 8, runs: 2, of: 4 })
  expect(baseline.wallSeconds).toEqual({ mean: 236.25, median: 20, runs: 4, of: 4 })
  expect(baseline.goldFileTouched).toEqual({ runs: 1, of: 2 })
  const tool = report.secondary!.tool!
  expect(tool).toMatchObject({ solvedTasks: 2, totalCostUsd: 2, costPerSolvedTaskUsd: 1, goldFileTouched: null })
  expect(tool.turns).toEqual({ mean: 9.5, median: 9, runs: 4, of: 4 })
})

test('an arm that solved nothing has no cost per solved task', () => {
  const records = ['001', '002'].flatMap((task) => [run(task, 'baseline', 1, 1, 'unsolved'), run(task, 'tool', 1, 1, 'solved')])
  const report = analyzeRuns(records, settings(), expectedRuns(['001', '002'], ['baseline', 'tool'], 1))
  expect(report.secondary!.baseline!.costPerSolvedTaskUsd).toBeNull()
  expect(report.secondary!.baseline!.turns).toBeNull()
})
