import { describe, expect, test } from 'vitest'
import { analyzeRuns } from '../../../src/analysis/report.ts'
import { claimEntry, type ClaimContext } from '../../../src/cli/publish/claim.ts'
import { experimentRecords, settings } from '../../analysis/records.ts'

function entryFor(stage: 'pilot' | 'confirmatory' | 'smoke' | 'demo' | 'example', change = -0.25) {
  const { records, expected } = experimentRecords({ tasks: 8, seeds: 1, change: () => change })
  const report = analyzeRuns(records, settings({ stage }), expected)
  const context: ClaimContext = {
    specSha256: 'a'.repeat(64),
    specFile: { file: 'tasks/pilot/experiment.ts', exportName: 'default', record: 'bench/task_outcome/x/spec.json' },
    changeLog: [],
    runs: { file: 'bench/task_outcome/x/runs.jsonl', sha256: 'b'.repeat(64), records: records.length },
    analysed: records,
    outDir: 'bench/task_outcome/x',
    archive: null,
    date: '2026-10-21',
  }
  return claimEntry(report, context)
}

describe('a claim entry', () => {
  test('only a confirmatory run is a product claim; every other stage carries its label', () => {
    expect(entryFor('confirmatory')).toMatchObject({ productClaim: true, label: { tag: 'CONFIRMATORY' } })
    expect(entryFor('pilot')).toMatchObject({ productClaim: false, stage: 'pilot', label: { tag: 'PILOT' } })
    expect(entryFor('smoke')).toMatchObject({ productClaim: false, label: { tag: 'SMOKE TEST' } })
    expect(entryFor('demo')).toMatchObject({ productClaim: false, label: { tag: 'DEMO' } })
    expect(entryFor('example')).toMatchObject({ productClaim: false, label: { tag: 'EXAMPLE' } })
  })

  test('a loss is written with the same fields as a win, and says what it is', () => {
    const win = entryFor('confirmatory', -0.25)
    const loss = entryFor('confirmatory', +0.25)
    expect(win.verdict).toBe('supported')
    expect(loss.verdict).toBe('not supported')
    expect(Object.keys(loss)).toEqual(Object.keys(win))
    expect(Object.keys(loss.comparisons[0]!)).toEqual(Object.keys(win.comparisons[0]!))
    expect(loss.comparisons[0]!.sentence).toContain('It is a loss')
    expect(loss.command).toBe('npx task-outcome analyze bench/task_outcome/x --json')
  })
})
