import { describe, expect, test } from 'vitest'
import { relativeChange, roundUsd } from '../../src/analysis/costs.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { reportJson } from '../../src/analysis/report-json.ts'
import { summariseTaskArms } from '../../src/analysis/task-summary.ts'
import { expectedRuns } from '../../src/analysis/completeness.ts'
import { run, settings } from './records.ts'

describe('per task and arm', () => {
  test('mean cost over seeds; solved when more than half the seeds solved (2 of 3 yes, 1 of 2 no)', () => {
    const table = summariseTaskArms(
      [
        run('001', 'a', 1, 0.1, 'solved'),
        run('001', 'a', 2, 0.2, 'unsolved'),
        run('001', 'a', 3, 0.3, 'solved'),
        run('002', 'a', 1, 1, 'solved'),
        run('002', 'a', 2, 2, 'unsolved'),
      ],
      ['a'],
      null,
    )
    expect(table.get('001')!.get('a')).toMatchObject({ meanCostUsd: 0.2, solvedSeeds: 2, solved: true, seeds: [1, 2, 3] })
    expect(table.get('002')!.get('a')).toMatchObject({ meanCostUsd: 1.5, solvedSeeds: 1, solved: false })
  })

  test('means are rounded to a billionth of a dollar, so float noise cannot make a zero difference non-zero', () => {
    // 0.1 + 0.2 + 0.3 = 0.6000000000000001 in one order and 0.6 in another.
    const records = [
      ...[0.1, 0.2, 0.3].map((cost, i) => run('001', 'baseline', i + 1, cost, 'solved')),
      ...[0.3, 0.2, 0.1].map((cost, i) => run('001', 'tool', i + 1, cost, 'solved')),
      ...[1, 2].flatMap((task) => [run(`00${task + 1}`, 'baseline', 1, 1, 'solved'), run(`00${task + 1}`, 'tool', 1, 0.5, 'solved')]),
    ]
    const expected = [...expectedRuns(['001'], ['baseline', 'tool'], 3), ...expectedRuns(['002', '003'], ['baseline', 'tool'], [1])]
    // The seed sets differ between tasks here; the rule compares each (task, arm) with the plan given.
    const report = analyzeRuns(records, settings(), expected)
    expect(report.comparisons[0]!.perTask[0]).toMatchObject({ task: '001', d: 0, r: 0 })
    expect(report.primary).toMatchObject({ n: 2 })
    expect(roundUsd(0.1 + 0.2 - 0.3)).toBe(0)
    expect(roundUsd(-0.0000000001)).toBe(0)
    expect(Object.is(roundUsd(-1e-12), -0)).toBe(false)
  })

  test('d = treatment − control and r = d / control, paired by task id', () => {
    const records = [run('002', 'tool', 1, 3, 'solved'), run('001', 'baseline', 1, 2, 'solved'), run('002', 'baseline', 1, 4, 'solved'), run('001', 'tool', 1, 1, 'solved')]
    const report = analyzeRuns(records, settings(), expectedRuns(['001', '002'], ['baseline', 'tool'], 1))
    expect(report.comparisons[0]!.perTask.map(({ task, d, r }) => ({ task, d, r }))).toEqual([
      { task: '001', d: -1, r: -0.5 },
      { task: '002', d: -1, r: -0.25 },
    ])
  })
})

describe('a control that cost nothing (only built-in agents can)', () => {
  test('r = 0 when the treatment cost nothing too, +∞ when it cost something, never a saving', () => {
    expect(relativeChange(0, 0)).toBe(0)
    expect(relativeChange(0.5, 0)).toBe(Infinity)
    expect(relativeChange(-0.5, 2)).toBe(-0.25)
  })

  test('an infinite r enters the median and the interval as the largest value; report.json writes it as "Infinity"; σ leaves it out', () => {
    const rows = [
      [0, 0.4],
      [0, 0.3],
      [1, 0.5],
      [2, 1.5],
      [1, 0.9],
    ] as const
    const records = rows.flatMap(([control, treatment], index) => [run(`00${index + 1}`, 'baseline', 1, control, 'solved'), run(`00${index + 1}`, 'tool', 1, treatment, 'solved')])
    const report = analyzeRuns(records, settings(), expectedRuns(['001', '002', '003', '004', '005'], ['baseline', 'tool'], 1))
    const comparison = report.comparisons[0]!
    expect(comparison.perTask.map((pair) => pair.r)).toEqual([Infinity, Infinity, -0.5, -0.25, -0.1])
    expect(report.effect!.medianRelativeChange).toBe(-0.1)
    expect(report.effect!.ci95[1]).toBe(Infinity)
    expect(report.decision.criteria!.interval.met).toBe(false)
    expect(comparison.power.tasksUsed).toBe(3)
    const json = JSON.parse(reportJson(report))
    expect(json.effect.ci95[1]).toBe('Infinity')
    expect(json.comparisons[0].perTask[0].r).toBe('Infinity')
  })

  test('both arms free on every task: every d is zero, V = 0, p = 1, not supported', () => {
    const records = ['001', '002', '003'].flatMap((task) => [run(task, 'baseline', 1, 0, 'unsolved'), run(task, 'tool', 1, 0, 'solved')])
    const report = analyzeRuns(records, settings(), expectedRuns(['001', '002', '003'], ['baseline', 'tool'], 1))
    expect(report.primary).toEqual({ statistic: 0, p: 1, n: 0, exact: true, minimumP: 1 })
    expect(report.effect!.ci95).toEqual([0, 0])
    expect(report.mcnemar).toEqual({ b: 3, c: 0, p: 0.25 })
    expect(report.power).toEqual({ sigma: 0, tasksNeeded: 5, minimumTasks: 5, tasksUsed: 3 })
    expect(report.decision.verdict).toBe('not supported')
  })
})
