import { describe, expect, test } from 'vitest'
import { reportDocument } from '../../src/analysis/document.ts'
import { renderMarkdown } from '../../src/analysis/render-markdown.ts'
import { verdictBlock } from '../../src/analysis/render-terminal.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import type { RecordedRun } from '../../src/runs/record.ts'
import { experimentRecords, settings } from './records.ts'

// The report's sandbox section: UNSANDBOXED runs said so, and the runs that tried to reach beyond their sandbox listed.

function withSandbox(records: RecordedRun[], version: string, denied: (record: RecordedRun) => number): RecordedRun[] {
  return records.map((record) => ({
    ...record,
    versions: { harness: '0.1.0', agent: 'a', model: null, tool: null, node: 'v20', sandbox: version, toolchain: 'node v20 /usr/bin/node' },
    sandbox: version.startsWith('none')
      ? null
      : { denied: { read: null, write: null, network: denied(record) }, examples: denied(record) > 0 ? ['CONNECT github.com:443'] : [], egress: [] },
  }))
}

describe("the report's sandbox section", () => {
  test('lists the runs that tried to reach beyond their sandbox, with what was refused', () => {
    const { records, expected } = experimentRecords({ tasks: 4, change: () => -0.2 })
    const marked = withSandbox(records, 'bubblewrap 0.8.0', (record) => (record.task === '002' && record.arm === 'tool' && record.seed === 1 ? 3 : 0))
    const report = analyzeRuns(marked, settings(), expected)
    expect(report.sandbox).toEqual({
      versions: ['bubblewrap 0.8.0'],
      unsandboxed: false,
      beyond: [{ task: '002', arm: 'tool', seed: 1, network: 3, examples: ['CONNECT github.com:443'] }],
    })
    expect(verdictBlock(report)).toContain('1 run(s) tried to reach beyond their sandbox')
    expect(renderMarkdown(reportDocument(report))).toContain('002 › tool › seed 1: 3 refused (CONNECT github.com:443)')
  })

  test('says UNSANDBOXED at the top of the report when runs were made without a sandbox', () => {
    const { records, expected } = experimentRecords({ tasks: 4, change: () => -0.2 })
    const report = analyzeRuns(
      withSandbox(records, 'none (UNSANDBOXED)', () => 0),
      settings(),
      expected,
    )
    expect(report.sandbox.unsandboxed).toBe(true)
    const blocks = reportDocument(report)
    expect(blocks.slice(0, 3)).toContainEqual(expect.objectContaining({ kind: 'label', tag: 'UNSANDBOXED' }))
    expect(verdictBlock(report)).toContain('UNSANDBOXED')
  })
})
