import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { expect, test } from 'vitest'
import { renderReportFiles } from '../../src/analysis/conclude.ts'
import { analyzeRuns } from '../../src/analysis/report.ts'
import { repoRoot } from '../helpers/experiment-fixture.ts'
import { experimentRecords, settings } from './records.ts'

/** Debian's Chromium, installed by .ci/run (apt-get install chromium); never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium'
/** The screenshot kept for a person to look at (git-ignored). */
const SCREENSHOT = path.join(repoRoot, 'test-artifacts', 'report-html.png')

async function chromium(args: readonly string[], profile: string) {
  return execa(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      ...args,
    ],
    { reject: false, timeout: 120_000 },
  )
}

test('real Chromium opens report.html offline: each figure drew one mark per task and one dot per run, and a screenshot is kept', { timeout: 300_000 }, async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y --no-install-recommends chromium), as .ci/run does`).toBe(true)
  const { records, expected } = experimentRecords({ tasks: 8, change: (task) => -0.25 + task * 0.05, unsolved: (task, arm) => task === 3 && arm === 'tool' })
  const report = analyzeRuns(records, settings(), expected)
  const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-browser-'))
  const page = path.join(dir, 'report.html')
  await writeFile(page, renderReportFiles(report, records)['report.html'])

  const dom = await chromium(['--dump-dom', pathToFileURL(page).href], path.join(dir, 'profile-dom'))
  expect(dom.exitCode, dom.stderr).toBe(0)
  const figures = [...dom.stdout.matchAll(/<figure id="([^"]+)" data-tasks="(\d+)" data-runs="(\d+)">([\s\S]*?)<\/figure>/g)]
  expect(figures.map((figure) => figure[1])).toEqual(['forest-tool', 'costs-tool'])
  for (const [, id, tasks, runs, body] of figures) {
    // The browser parsed the inline SVG into elements: the marks are there, one per task and one per run.
    expect(body, id).toMatch(/<svg [^>]*class="marks"/)
    expect(Number(tasks)).toBe(8)
    expect(Number(runs)).toBe(48)
    const taskMarks =
      id === 'forest-tool' ? /<path [^>]*aria-label="task \d{3}: r = [^"]+"/g : /<line [^>]*aria-label="task \d{3}: [^"]+"|<path [^>]*aria-label="task \d{3}: [^"]+"/g
    expect((body!.match(taskMarks) ?? []).length, `${id}: one mark per task`).toBe(8)
    expect((body!.match(/<path [^>]*aria-label="run \d{3} › (baseline|tool) › seed \d: [^"]+"/g) ?? []).length, `${id}: one dot per run`).toBe(48)
  }

  await mkdir(path.dirname(SCREENSHOT), { recursive: true })
  const shot = await chromium([`--screenshot=${SCREENSHOT}`, '--window-size=1200,3000', pathToFileURL(page).href], path.join(dir, 'profile-shot'))
  expect(shot.exitCode, shot.stderr).toBe(0)
  const png = await readFile(SCREENSHOT)
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')
  expect(png.length).toBeGreaterThan(20_000)
})
