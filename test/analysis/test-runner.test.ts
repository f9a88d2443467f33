import { describe, expect, test } from 'vitest'
import { reportDocument } from '../../src/analysis/document.ts'
import { renderMarkdown } from '../../src/analysis/render-markdown.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import type { RecordedRun } from '../../src/runs/record.ts'
import { experimentRecords, settings } from './records.ts'

// The report's provenance names the test runner the oracle judged with (`versions.testRunner`), as it names every version.

function withRunner(records: RecordedRun[], runner: (record: RecordedRun) => string | null | undefined): RecordedRun[] {
  return records.map((record) => {
    const value = runner(record)
    const versions = { harness: '0.1.0', agent: 'a', model: null, tool: null, node: 'v20', sandbox: 'bubblewrap 0.8.0', toolchain: 'node v20 /usr/bin/node' }
    return { ...record, versions: value === undefined ? versions : { ...versions, testRunner: value } }
  })
}

describe("the report's test runner", () => {
  test('lists every runner the analysed runs were judged with, and none for a run without one', () => {
    const { records, expected } = experimentRecords({ tasks: 4, change: () => -0.2 })
    const report = analyzeRuns(
      withRunner(records, (record) => (record.task === '001' ? null : 'vitest 4.1.12')),
      settings(),
      expected,
    )
    expect(report.versions.testRunner).toEqual(['vitest 4.1.12', null])
    expect(renderMarkdown(reportDocument(report))).toMatch(/\| test runner +\| vitest 4\.1\.12, none +\|/)
  })

  test('counts a record from before the field existed as none', () => {
    const { records, expected } = experimentRecords({ tasks: 4, change: () => -0.2 })
    expect(
      analyzeRuns(
        withRunner(records, () => undefined),
        settings(),
        expected,
      ).versions.testRunner,
    ).toEqual([null])
  })
})
