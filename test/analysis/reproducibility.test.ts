import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import seedrandom from 'seedrandom'
import { expect, test } from 'vitest'
import { renderReportFiles } from '../../src/analysis/conclude.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { SequentialSchema } from '../../src/experiment/schema.ts'
import { seededShuffle } from '../../src/shared/seeded-shuffle.ts'
import { formatRuns, parseRuns } from '../../src/runs/store.ts'
import { experimentRecords, settings } from './records.ts'

const data = () => experimentRecords({ tasks: 15, seeds: 3, change: (task) => -0.3 + (task % 5) * 0.1, unsolved: (task, arm) => arm === 'tool' && task === 4 })

test('the same runs.jsonl gives the same report files, byte for byte, however often and wherever it is analysed', async () => {
  const { records, expected } = data()
  const text = formatRuns(records)
  const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-repro-'))
  const first = renderReportFiles(analyzeRuns(parseRuns(text, path.join(dir, 'runs.jsonl')), settings(), expected), parseRuns(text, path.join(dir, 'runs.jsonl')))
  const second = renderReportFiles(analyzeRuns(parseRuns(text, '/elsewhere/runs.jsonl'), settings(), expected), parseRuns(text, '/elsewhere/runs.jsonl'))
  expect(second).toEqual(first)
  expect(first['report.json']).not.toMatch(/\d{4}-\d{2}-\d{2}T/) // no timestamps
})

test('the order of the lines in runs.jsonl does not matter (runs are matched by task, arm and seed, never by position)', () => {
  const { records, expected } = data()
  const shuffled = seededShuffle(records, 'any order')
  expect(shuffled.map((record) => record.task)).not.toEqual(records.map((record) => record.task))
  expect(renderReportFiles(analyzeRuns(shuffled, settings(), expected), shuffled)).toEqual(renderReportFiles(analyzeRuns(records, settings(), expected), records))
})

test('fields the analysis does not use change nothing in the report', () => {
  const { records, expected } = data()
  const random = seedrandom('noise')
  const decorated = records.map((record) => ({ ...record, note: `hand-added ${random()}`, startedAt: new Date(1e12 + random() * 1e9).toISOString() }))
  expect(renderReportFiles(analyzeRuns(decorated, settings(), expected), decorated)['report.json']).toBe(
    renderReportFiles(analyzeRuns(records, settings(), expected), records)['report.json'],
  )
})

test("report.json keeps DESIGN's fields, in DESIGN's order, before the additions", () => {
  const { records, expected } = data()
  const json = JSON.parse(renderReportFiles(analyzeRuns(records, settings(), expected), records)['report.json']) as Record<string, unknown>
  expect(Object.keys(json)).toEqual([
    'experiment',
    'stage',
    'specSha256',
    'versions',
    'sandbox',
    'complete',
    'missing',
    'missingRuns',
    'tasks',
    'seeds',
    'arms',
    'primary',
    'solved',
    'mcnemar',
    'effect',
    'hodgesLehmann',
    'decision',
    'secondary',
    'power',
    'comparisons',
    'skillChecks',
    'integrity',
    'changeLog',
    'analysis',
    'control',
    'treatments',
    'designChecks',
    'planned',
    'parameters',
    'unexpected',
    'unexpectedRuns',
    'armsWithoutRuns',
    'tasksWithoutRuns',
    'seedsMissingEverywhere',
    'cost',
    'egress',
    'solvedDifference',
    'earlierSpecs',
    'contamination',
    'promptAllowances',
    'sequential',
  ])
  expect(Object.keys(json.primary as object)).toEqual(['statistic', 'p', 'n', 'exact', 'minimumP'])
  expect(Object.keys(json.hodgesLehmann as object)).toEqual(['estimate', 'ci95', 'method'])
  expect(Object.keys(json.mcnemar as object)).toEqual(['b', 'c', 'p'])
  expect(Object.keys(json.effect as object)).toEqual(['medianRelativeChange', 'ci95', 'resamples', 'seed'])
  expect(Object.keys(json.decision as object)).toEqual(['verdict', 'supported', 'criteria'])
  expect(Object.keys(json.power as object)).toEqual(['sigma', 'tasksNeeded', 'minimumTasks', 'tasksUsed'])
  expect(json).toMatchObject({ tasks: 15, seeds: 3, arms: ['baseline', 'tool'], solved: { baseline: 15, tool: 14 } })
})

test("report.json's sequential block has the fields docs/analysis.md and the README name, in their order (null for a fixed design)", () => {
  const { records, expected } = data()
  const fixed = JSON.parse(renderReportFiles(analyzeRuns(records, settings(), expected), records)['report.json']) as { sequential: unknown }
  expect(fixed.sequential).toBeNull()
  const sequential = settings({ sequential: SequentialSchema.parse({ looks: [0.5, 1] }) })
  const json = JSON.parse(renderReportFiles(analyzeRuns(records, sequential, expected), records)['report.json']) as { sequential: Record<string, unknown> }
  expect(Object.keys(json.sequential)).toEqual(['design', 'looks', 'stoppedAt', 'stoppedFor', 'pendingLook', 'analysedTasks', 'skippedRuns', 'recordedAfterStop', 'adjustedP'])
  expect(Object.keys(json.sequential.design as object)).toEqual(['looks', 'fractions', 'spending', 'futility', 'binding'])
})

test('a different bootstrap seed changes only the interval, and says so', () => {
  const { records, expected } = data()
  const a = analyzeRuns(records, settings(), expected)
  const b = analyzeRuns(records, settings({ bootstrapSeed: 'another' }), expected)
  expect(b.primary).toEqual(a.primary)
  expect(b.effect!.medianRelativeChange).toBe(a.effect!.medianRelativeChange)
  expect(b.effect!.seed).toBe('another')
})
