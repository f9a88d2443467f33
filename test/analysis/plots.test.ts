import { describe, expect, test } from 'vitest'
import { renderReportFiles } from '../../src/analysis/conclude.ts'
import { RUN_TABLE_LIMIT } from '../../src/analysis/document.ts'
import { reportFigures, RUN_MARKS_LIMIT, TASK_ROWS_LIMIT } from '../../src/analysis/plots.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { renderSvg, renderSvgAsync } from '../../src/analysis/render-svg.ts'
import { experimentRecords, run, settings, taskIds } from './records.ts'
import { expectedRuns } from '../../src/analysis/completeness.ts'

function pilot() {
  const { records, expected } = experimentRecords({ tasks: 6, change: (task) => -0.2 + task * 0.03, unsolved: (task, arm) => task === 2 && arm === 'tool' })
  return { records, report: analyzeRuns(records, settings(), expected) }
}

const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length

/** How an SVG element is painted: its fill (none when absent), fill and overall opacity, stroke and stroke width. */
function paint(element: string): string {
  const attribute = (name: string, absent: string) => new RegExp(` ${name}="([^"]*)"`).exec(element)?.[1] ?? absent
  return `fill ${attribute('fill', 'none')} × ${attribute('fill-opacity', '1')}, stroke ${attribute('stroke', 'none')} ${attribute('stroke-width', '1')}, opacity ${attribute('opacity', '1')}`
}

/** The legend's entries of a rendered figure: each label with how its symbol is painted. */
function legendPaint(svg: string): Record<string, string> {
  const symbols = [...svg.matchAll(/<g class="mark-symbol role-legend-symbol"[^>]*>(<path[^>]*>)/g)].map((match) => paint(match[1]!))
  const labels = [...svg.matchAll(/<g class="mark-text role-legend-label"[^>]*><text[^>]*>([^<]*)<\/text>/g)].map((match) => match[1]!)
  expect(symbols).toHaveLength(labels.length)
  return Object.fromEntries(labels.map((label, i) => [label, symbols[i]!]))
}

describe('report.html figures', () => {
  test("the synchronous renderer writes exactly what Vega's own headless toSVG writes", async () => {
    const { records, report } = pilot()
    for (const figure of reportFigures(report, records)) expect(renderSvg(figure.spec)).toBe(await renderSvgAsync(figure.spec))
  })

  test('the forest plot: one diamond per task, one dot per run of both arms, the median band and zero marked', () => {
    const { records, report } = pilot()
    const [forest, costs] = reportFigures(report, records)
    expect(forest!.marks).toEqual({ tasks: 6, runs: 36 })
    const svg = renderSvg(forest!.spec)
    expect(count(svg, /aria-label="task \d{3}: r = /g)).toBe(6)
    expect(count(svg, /aria-label="run \d{3} › (baseline|tool) › seed \d: /g)).toBe(36)
    expect(svg).toContain('mark-rect')
    expect(forest!.caption).toContain('the dashed line zero')
    expect(costs!.marks).toEqual({ tasks: 6, runs: 36 })
    const costSvg = renderSvg(costs!.spec)
    expect(count(costSvg, /aria-label="run \d{3} › (baseline|tool) › seed \d: (solved|unsolved|timeout)/g)).toBe(36)
    expect(count(costSvg, /aria-label="run 003 › tool › seed \d: unsolved/g)).toBe(3)
  })

  test("the forest plot's legend paints each arm as its dots are painted: the treatment filled, the control hollow", () => {
    const { records, report } = pilot()
    const svg = renderSvg(reportFigures(report, records)[0]!.spec)
    const dotsOf = (arm: string) => new Set([...svg.matchAll(new RegExp(`<path aria-label="run \\d{3} › ${arm} › [^>]*>`, 'g'))].map((match) => paint(match[0])))
    const legend = legendPaint(svg)
    expect(Object.keys(legend)).toEqual(['baseline', 'tool'])
    for (const arm of ['baseline', 'tool']) expect([...dotsOf(arm)]).toEqual([legend[arm]])
    expect(legend.tool).toMatch(/^fill #e45756 /)
    expect(legend.baseline).toMatch(/^fill none /)
  })

  test('report.html embeds the figures as inline SVG, with no script and no external asset; runs link their transcript, diff and oracle output', () => {
    const { records, report } = pilot()
    const withTranscripts = records.map((record) => ({ ...record, transcript: `artifacts/${record.task}/${record.arm}/seed-${record.seed}/transcript.jsonl` }))
    const html = renderReportFiles(report, withTranscripts)['report.html']
    expect(count(html, /<figure id="(forest|costs)-tool"/g)).toBe(2)
    expect(count(html, /<svg /g)).toBe(2)
    expect(html).not.toMatch(/<script|<link |<img |@import|url\(/i)
    expect(html.replace(/xmlns(:xlink)?="http:\/\/www\.w3\.org\/[^"]+"/g, '')).not.toMatch(/https?:\/\//)
    expect(html).toContain('<a href="artifacts/003/tool/seed-2/transcript.jsonl">transcript</a>')
    expect(html).toContain('<a href="artifacts/003/tool/seed-2/diff.patch">diff.patch</a>')
    expect(html).toContain('<a href="artifacts/003/tool/seed-2/oracle.stdout.txt">stdout</a>')
    const markdown = renderReportFiles(report, withTranscripts)['report.md']
    expect(markdown).toContain('[diff.patch](artifacts/003/tool/seed-2/diff.patch)')
    expect(markdown).toContain('Figure (in report.html): Per-task relative cost change: tool against baseline.')
  })

  test('same records, same bytes; a free control (r = +∞) is left out of the forest plot and the caption says so', () => {
    const { records, report } = pilot()
    expect(renderReportFiles(report, records)['report.html']).toBe(renderReportFiles(report, [...records].reverse())['report.html'])
    const ids = taskIds(6)
    const free = ids.flatMap((task, index) =>
      [1, 2].flatMap((seed) => [run(task, 'baseline', seed, index === 0 ? 0 : 1, 'solved'), run(task, 'tool', seed, index === 0 ? 0.1 : 0.8, 'solved')]),
    )
    const freeReport = analyzeRuns(free, settings(), expectedRuns(ids, ['baseline', 'tool'], 2))
    const [forest] = reportFigures(freeReport, free)
    expect(forest!.marks.tasks).toBe(5)
    expect(forest!.caption).toContain('1 task(s) whose baseline cost nothing (r = +∞) are not drawn.')
  })

  test('a skill experiment gets one row per condition, claim arms and design checks told apart', () => {
    const { records, expected } = experimentRecords({
      tasks: 6,
      arms: ['control', 'target', 'negative', 'full'],
      change: (_task, arm) => (arm === 'target' ? -0.3 : arm === 'full' ? -0.2 : 0.002),
    })
    const report = analyzeRuns(records, settings({ control: 'control', treatments: ['target', 'full'], designChecks: ['negative'] }), expected)
    const conditions = reportFigures(report, records).find((figure) => figure.id === 'conditions')!
    const svg = renderSvg(conditions.spec)
    expect(count(svg, /aria-label="condition [^"]+"/g)).toBe(4)
    for (const row of ['target vs control', 'full vs control', 'negative vs control', 'full vs target']) expect(svg).toContain(`aria-label="condition ${row}: `)
  })

  test('past the run marks a figure can show, each task draws its runs per arm as one range, and the caption says so', () => {
    // 45 tasks × 2 arms × 25 seeds = 2,250 runs: more dots than the limit, rows still one per task.
    const { records, expected } = experimentRecords({ tasks: 45, seeds: 25, change: (task) => -0.2 + (task % 7) * 0.05 })
    expect(records.length).toBeGreaterThan(RUN_MARKS_LIMIT)
    const [forest, costs] = reportFigures(analyzeRuns(records, settings(), expected), records)
    for (const figure of [forest!, costs!]) {
      expect(figure.marks).toEqual({ tasks: 45, runs: 0 })
      const svg = renderSvg(figure.spec)
      expect(count(svg, /aria-label="run \d{3} › /g)).toBe(0)
      expect(count(svg, /aria-label="runs \d{3} › (baseline|tool): 25 runs from /g)).toBe(90)
      expect(figure.caption).toContain('too many runs to draw one by one')
    }
    expect(count(renderSvg(forest!.spec), /aria-label="task \d{3}: r = /g)).toBe(45)
  })

  test('past the rows a page can show, the forest plot is a histogram of the per-task r and the paired costs one dot per task', () => {
    const tasks = TASK_ROWS_LIMIT + 40
    const { records, expected } = experimentRecords({ tasks, seeds: 1, change: (task) => -0.3 + (task % 11) * 0.05 })
    const report = analyzeRuns(records, settings(), expected)
    const [forest, costs] = reportFigures(report, records)
    const forestSvg = renderSvg(forest!.spec)
    expect(count(forestSvg, /aria-label="task /g)).toBe(0)
    const bars = [...forestSvg.matchAll(/aria-label="(\d+) task\(s\) with r from /g)].map((match) => Number(match[1]))
    expect(bars.length).toBeGreaterThan(1)
    expect(bars.reduce((sum, bar) => sum + bar, 0)).toBe(tasks)
    expect(forest!.caption).toContain(`${tasks} tasks, too many for a row each`)
    expect(forest!.caption).toContain('the shaded band is the 95% bootstrap interval of the median r')
    const costSvg = renderSvg(costs!.spec)
    expect(costs!.marks).toEqual({ tasks, runs: 0 })
    expect(count(costSvg, /aria-label="task \d{3}: baseline \$[\d.]+ → tool \$[\d.]+"/g)).toBe(tasks)
    const cheaper = report.comparisons[0]!.perTask.filter((pair) => pair.treatment.meanCostUsd < pair.control.meanCostUsd).length
    expect(costs!.caption).toContain(`(${cheaper} of ${tasks} tasks)`)
  })

  test("past the runs a table can list, the report says where every run's artifacts are instead of listing them", () => {
    const { records, expected } = experimentRecords({ tasks: 45, seeds: 25, change: () => -0.1 })
    expect(records.length).toBeGreaterThan(RUN_TABLE_LIMIT)
    const files = renderReportFiles(analyzeRuns(records, settings(), expected), records)
    const listed = "2,250 runs, more than the 2,000 a table here lists: each run's transcript, diff and oracle output are in its own folder, artifacts/"
    expect(files['report.md']).toContain(`${listed}<task>/<arm>/seed-<seed>/ (diff.patch, oracle.stdout.txt)`)
    expect(files['report.html']).toContain(`${listed}&lt;task&gt;/&lt;arm&gt;/seed-&lt;seed&gt;/`)
    for (const text of [files['report.md'], files['report.html']]) expect(text).not.toContain('artifacts/001/tool/seed-2/diff.patch')
  })
})
