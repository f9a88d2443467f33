import { expect, test } from 'vitest'
import { expectedRuns } from '../../src/analysis/completeness.ts'
import { powerAnalysis } from '../../src/analysis/power.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { sampleStandardDeviation } from '../../src/stats/descriptive.ts'
import { experimentRecords, run, settings } from './records.ts'

test('σ is the sample standard deviation of r over tasks; the report and the power analysis agree', () => {
  const { records, expected } = experimentRecords({ tasks: 9, change: (task) => -0.3 + task * 0.05 })
  const report = analyzeRuns(records, settings(), expected)
  const rs = report.comparisons[0]!.perTask.map((pair) => pair.r)
  expect(report.power!.sigma).toBeCloseTo(sampleStandardDeviation(rs)!, 14)
  const [power] = powerAnalysis(records, settings(), expected)
  expect(power).toMatchObject({ treatment: 'tool', control: 'baseline', tasks: 9, tasksLeftOut: 0, sigma: report.power!.sigma, tasksNeeded: report.power!.tasksNeeded })
  expect(power!.tasksNeeded).toBe(Math.ceil(power!.exactTasks!))
  expect(power!.exactTasks).toBeCloseTo((((1.6448536269514722 + 0.8416212335729143) * power!.sigma!) / 0.15) ** 2 / 0.955, 10)
})

test('power uses the tasks complete in both arms and counts those it left out', () => {
  const { records, expected } = experimentRecords({ tasks: 6, change: (task) => -0.2 + task * 0.02 })
  const kept = records.filter((record) => !(record.task === '003' && record.seed === 1))
  const [power] = powerAnalysis(kept, settings(), expected)
  expect(power).toMatchObject({ tasks: 5, tasksLeftOut: 1 })
})

test('with fewer than two tasks there is no σ and no size', () => {
  const records = [run('001', 'baseline', 1, 1, 'solved'), run('001', 'tool', 1, 0.5, 'solved')]
  const [power] = powerAnalysis(records, settings(), expectedRuns(['001'], ['baseline', 'tool'], 1))
  expect(power).toMatchObject({ sigma: null, tasksNeeded: null, exactTasks: null })
})
