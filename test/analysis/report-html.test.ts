import { expect, test } from 'vitest'
import { renderReportFiles } from '../../src/analysis/conclude.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { experimentRecords, settings } from './records.ts'

test("report.html is one self-contained static page: no script, no stylesheet link, no remote or relative asset (links go only to the runs' artifacts beside it)", () => {
  const { records, expected } = experimentRecords({ tasks: 5, change: () => -0.1 })
  const html = renderReportFiles(analyzeRuns(records, settings(), expected), records)['report.html']
  expect(html.startsWith('<!doctype html>')).toBe(true)
  expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i)
  expect(html).not.toMatch(/\bsrc=/i)
  const links = [...html.matchAll(/\bhref="([^"]*)"/g)].map((match) => match[1]!)
  expect(links.length).toBeGreaterThan(0)
  for (const link of links) expect(link).toMatch(/^artifacts\/\d{3}\/(baseline|tool)\/seed-\d\/(diff\.patch|oracle\.stdout\.txt|transcript\.jsonl)$/)
  expect(html).toContain('<style>')
  expect(html).toContain('<strong>Verdict: supported.</strong>')
  expect(html).toContain('<strong>PILOT.</strong>')
})

test('text from the records is escaped, so a task or arm name cannot inject markup', () => {
  const { records, expected } = experimentRecords({ tasks: 3, change: () => -0.1 })
  const evil = '<img src=x onerror=alert(1)>'
  const renamed = records.map((record) => (record.task === '001' ? { ...record, task: evil } : record))
  const plan = expected.map((run) => (run.task === '001' ? { ...run, task: evil } : run))
  const html = renderReportFiles(analyzeRuns(renamed, settings(), plan), renamed)['report.html']
  expect(html).not.toContain(evil)
  expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;')
})
