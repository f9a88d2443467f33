import seedrandom from 'seedrandom'
import { describe, expect, test } from 'vitest'
import { reportDocument } from '../../src/analysis/document.ts'
import { renderMarkdown } from '../../src/analysis/render-markdown.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { reportJson } from '../../src/analysis/report-json.ts'
import { taskRepositories } from '../../src/analysis/repository-breakdown.ts'
import { DataError } from '../../src/errors.ts'
import type { RecordedRun } from '../../src/runs/record.ts'
import { experimentRecords, run, settings } from './records.ts'

/** The records with each task's repository set by `repositoryOf(task index)`. */
function named(records: readonly RecordedRun[], repositoryOf: (task: string) => string): RecordedRun[] {
  return records.map((record) => ({ ...record, repository: repositoryOf(record.task) }))
}

describe('the per-repository breakdown of report.json', () => {
  test('brute force: each repository gets exactly the endpoints the pooled analysis gives on its tasks alone, and the pooled test is unchanged', () => {
    for (let trial = 0; trial < 12; trial++) {
      const random = seedrandom(`breakdown-${trial}`)
      const tasks = 4 + Math.floor(random() * 9)
      const { records, expected } = experimentRecords({
        tasks,
        seed: `records-${trial}`,
        change: () => (random() - 0.6) * 0.5,
        unsolved: () => random() < 0.25,
      })
      const assignment = new Map(expected.map((run) => [run.task, run.task === '001' ? 'alpha' : run.task === '002' ? 'beta' : random() < 0.5 ? 'alpha' : 'beta']))
      const tagged = named(records, (task) => assignment.get(task)!)
      const report = analyzeRuns(tagged, settings(), expected)
      const plain = analyzeRuns(records, settings(), expected)
      expect(report.comparisons, `trial ${trial}: the pooled comparison`).toEqual(plain.comparisons)
      expect(report.decision).toEqual(plain.decision)
      const breakdown = report.byRepository![0]!
      expect(breakdown.repositories.map((entry) => entry.repository)).toEqual(['alpha', 'beta'])
      for (const entry of breakdown.repositories) {
        const mine = (task: string) => assignment.get(task) === entry.repository
        const alone = analyzeRuns(
          records.filter((record) => mine(record.task)),
          settings(),
          expected.filter((run) => mine(run.task)),
        ).comparisons[0]!
        expect(entry.tasks).toBe(alone.tasks)
        expect(entry.primary).toEqual({ statistic: alone.primary.statistic, p: alone.primary.p, n: alone.primary.n, minimumP: alone.primary.minimumP })
        expect(entry.hodgesLehmann).toEqual(alone.hodgesLehmann)
        expect(entry.solved).toEqual(alone.solved)
        expect(entry.mcnemar).toEqual(alone.mcnemar)
      }
      expect(breakdown.repositories.reduce((sum, entry) => sum + entry.tasks, 0)).toBe(report.comparisons[0]!.tasks)
    }
  })

  test('records of one repository (or none) give the report they gave before: no byRepository, the same report.json bytes', () => {
    const { records, expected } = experimentRecords({ tasks: 6, change: () => -0.2 })
    const before = reportJson(analyzeRuns(records, settings(), expected))
    const one = analyzeRuns(
      named(records, () => 'alpha'),
      settings(),
      expected,
    )
    expect('byRepository' in one).toBe(false)
    expect(reportJson(one)).toBe(before)
  })

  test('report.json carries the breakdown for each claim arm, and report.md a table row per repository', () => {
    const { records, expected } = experimentRecords({ tasks: 6, change: () => -0.2 })
    const report = analyzeRuns(
      named(records, (task) => (task <= '003' ? 'alpha' : 'beta')),
      settings(),
      expected,
    )
    const json = JSON.parse(reportJson(report)) as { byRepository: { treatment: string; repositories: { repository: string; tasks: number }[] }[] }
    expect(json.byRepository.map((entry) => [entry.treatment, entry.repositories.map((r) => [r.repository, r.tasks])])).toEqual([
      [
        'tool',
        [
          ['alpha', 3],
          ['beta', 3],
        ],
      ],
    ])
    const markdown = renderMarkdown(reportDocument(report))
    expect(markdown).toContain('## By repository (exploratory)')
    expect(markdown).toMatch(/\| alpha +\| 3 +\|/)
    expect(markdown).toMatch(/\| beta +\| 3 +\|/)
  })

  test('a task whose runs name two repositories is refused, naming the task and both', () => {
    expect(() => taskRepositories([run('001', 'baseline', 1, 1, 'solved', { repository: 'alpha' }), run('001', 'tool', 1, 1, 'solved', { repository: 'beta' })])).toThrow(DataError)
    expect(() => taskRepositories([run('001', 'baseline', 1, 1, 'solved', { repository: 'alpha' }), run('001', 'tool', 1, 1, 'solved')])).toThrow(
      /task 001 has runs naming repository "alpha" and runs naming "\(no repository\)"/,
    )
  })
})
