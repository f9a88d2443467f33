import { expect, test } from 'vitest'
import { renderReportFiles } from '../../src/analysis/conclude.ts'
import { integritySummary } from '../../src/analysis/integrity-summary.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { verdictBlock } from '../../src/analysis/render-terminal.ts'
import { experimentRecords, settings } from './records.ts'

// Task 001's runs are unsolved, so in record order its flagged run comes before the solved ones.
function flaggedRecords() {
  const { records, expected } = experimentRecords({ tasks: 3, change: () => -0.1, unsolved: (task) => task === 0 })
  const flags: Record<string, string> = {
    '001/tool/1': 'reads test files: src/a.js:3',
    '002/tool/2': 'replaces node:assert: src/b.js:1',
    '003/baseline/1': 'extends expect: src/c.ts:7',
  }
  const flagged = records.map((record) => {
    const flag = flags[`${record.task}/${record.arm}/${record.seed}`]
    return flag === undefined ? record : { ...record, integrityFlags: [flag] }
  })
  return { records: flagged, expected }
}

test('flagged solved runs come first, each group in record order, and the count of solved ones is kept', () => {
  const { records } = flaggedRecords()
  const summary = integritySummary(records, ['baseline', 'tool'])
  expect(summary.flagged.map((run) => `${run.task}/${run.arm}/${run.outcome}`)).toEqual(['002/tool/solved', '003/baseline/solved', '001/tool/unsolved'])
  expect(summary.solvedFlagged).toBe(2)
  expect(integritySummary(records, ['tool']).flagged.map((run) => run.task)).toEqual(['002', '001'])
})

test('report.json, report.md and the terminal list the flagged solved runs first', () => {
  const { records, expected } = flaggedRecords()
  const report = analyzeRuns(records, settings(), expected)
  const files = renderReportFiles(report, records)
  const json = JSON.parse(files['report.json']) as { integrity: { flagged: { task: string }[]; solvedFlagged: number } }
  expect(json.integrity.flagged.map((run) => run.task)).toEqual(['002', '003', '001'])
  expect(json.integrity.solvedFlagged).toBe(2)
  for (const text of [files['report.md'], verdictBlock(report)]) {
    const order = ['002 › tool › seed 2 (solved)', '003 › baseline › seed 1 (solved)', '001 › tool › seed 1 (unsolved)'].map((label) => text.indexOf(label))
    expect(order, text).not.toContain(-1)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
  }
})
