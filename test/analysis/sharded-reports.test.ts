import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { expect, test } from 'vitest'
import { createExperimentFixture, type ExperimentFixture, type FixtureTask } from '../helpers/experiment-fixture.ts'

// The real path end to end: the real Claude Code CLI (the pinned dependency) in its sandbox against the scripted
// model server on 127.0.0.1, one experiment run once unsharded and once as two blob shards merged with
// `--merge-reports`, each in its own project folder and workspace folder (of different lengths, so every workspace
// path differs, in length too). The report files must come out the same, byte for byte, but for the per-arm wall
// time: the one clock reading a report carries (docs/analysis.md, "Reproducible reports").

const REPORTS = ['report.json', 'report.md', 'report.html'] as const

/** Two small tasks the scripted model explores, reads and fixes (its reference fix is the solve script). */
const tasks: FixtureTask[] = [
  {
    id: '001-greeting-comma',
    prompt: 'The greeting should put a comma after Hello.\n',
    starting: { 'src/greet.js': 'export const greet = (name) => "Hello " + name\n', 'src/util.js': 'export const id = (x) => x\n', 'README.md': '# greet\n' },
    verify: 'grep -q \'"Hello, "\' src/greet.js',
    solve: 'sed -i \'s/"Hello "/"Hello, "/\' src/greet.js',
  },
  {
    id: '002-farewell-word',
    prompt: 'The farewell should say Goodbye instead of Bye.\n',
    starting: { 'src/farewell.js': 'export const farewell = (name) => "Bye " + name\n', 'src/util.js': 'export const id = (x) => x\n', 'README.md': '# farewell\n' },
    verify: 'grep -q \'"Goodbye "\' src/farewell.js',
    solve: 'sed -i \'s/"Bye "/"Goodbye "/\' src/farewell.js',
  },
]

/** A fixture running claude-code against the scripted model, baseline against an arm whose CLAUDE.md names the files. */
async function claudeExperiment(): Promise<ExperimentFixture> {
  const fixture = await createExperimentFixture(tasks)
  await writeFile(path.join(fixture.setDir, 'notes.md'), '# Project notes\n\nGreetings live in src/greet.js, farewells in src/farewell.js.\n')
  await fixture.writeExperiment({
    agent: { kind: 'claude-code', model: 'claude-sonnet-4-5', options: { scriptedModel: true } },
    arms: { baseline: {}, notes: { setup: { files: { 'CLAUDE.md': 'notes.md' } } } },
    control: 'baseline',
    seeds: 1,
    budgetUsd: 1,
    timeoutSeconds: 120,
    oracleTimeoutSeconds: 60,
    env: { set: { CLAUDE_CODE_MAX_RETRIES: '1' } },
  })
  return fixture
}

const reports = async (fixture: ExperimentFixture) =>
  Object.fromEntries(await Promise.all(REPORTS.map(async (name) => [name, await readFile(path.join(fixture.outDir, name), 'utf8')] as const)))

/**
 * A report file with its wall times set aside: the per-arm "wall s" measure (report.json's `wallSeconds`, the
 * column of the per-arm table) is the one clock reading a report carries, pre-registered as a secondary measure,
 * and no second run reproduces it. Everything else must match byte for byte. Returns the text with those values
 * replaced by a mark, and the values replaced.
 */
function setWallTimesAside(name: (typeof REPORTS)[number], text: string): { readonly text: string; readonly wallTimes: string[] } {
  const wallTimes: string[] = []
  const mark = '<wall time>'
  if (name === 'report.json') {
    const masked = text.replace(/"wallSeconds": (\{[^{}]*\})/g, (_, value: string) => {
      wallTimes.push(value)
      return `"wallSeconds": "${mark}"`
    })
    return { text: masked, wallTimes }
  }
  if (name === 'report.md') {
    const lines = text.split('\n')
    const header = lines.findIndex((line) => line.startsWith('| arm ') && line.includes('| wall s '))
    const column = lines[header]!.split('|').findIndex((cell) => cell.trim() === 'wall s')
    for (let index = header; index < lines.length && lines[index]!.startsWith('|'); index++) {
      const cells = lines[index]!.split('|')
      if (index > header + 1) wallTimes.push(cells[column]!.trim())
      cells[column] = index === header ? ' wall s ' : index === header + 1 ? ' --- ' : ` ${mark} `
      lines[index] = cells.join('|')
    }
    return { text: lines.join('\n'), wallTimes }
  }
  const at = text.indexOf('<th>wall s</th>')
  const start = text.lastIndexOf('<table', at)
  const end = text.indexOf('</table>', at)
  const table = text.slice(start, end)
  const column = [...table.matchAll(/<th>(.*?)<\/th>/g)].findIndex((cell) => cell[1] === 'wall s')
  const masked = table.replace(/<tr>(.*?)<\/tr>/gs, (row: string) => {
    if (!row.includes('<td>')) return row
    let index = -1
    return row.replace(/<td>(.*?)<\/td>/gs, (cell: string, value: string) => {
      if (++index !== column) return cell
      wallTimes.push(value)
      return `<td>${mark}</td>`
    })
  })
  return { text: text.slice(0, start) + masked + text.slice(end), wallTimes }
}

/** What a run measured, without its clock readings, its chain link (the order of recording) and its transcript's hash (session ids). */
function measured(run: Record<string, unknown>) {
  const { startedAt: _s, finishedAt: _f, wallMs: _w, prevSha256: _p, transcriptSha256: _t, ...rest } = run
  return rest
}
const byOrder = (a: Record<string, unknown>, b: Record<string, unknown>) => Number(a.order) - Number(b.order)

test('a sharded run merged with --merge-reports and an unsharded run give byte-identical reports, wall times aside', { timeout: 600_000 }, async () => {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-sharded-reports-'))
  const workdir = async (name: string) => {
    const dir = path.join(scratch, name)
    await mkdir(dir, { recursive: true })
    return { TASK_OUTCOME_WORKDIR: dir }
  }

  const unsharded = await claudeExperiment()
  const whole = await unsharded.vitest([], { env: await workdir('w') })
  expect(whole.exitCode, whole.all).toBe(0)

  const sharded = await claudeExperiment()
  const blobs = path.join(scratch, 'blobs')
  for (const index of [1, 2]) {
    const shard = await sharded.vitest([`--shard=${index}/2`, '--reporter=blob', `--outputFile=${path.join(blobs, `blob-${index}-2.json`)}`], {
      env: await workdir(`a-much-longer-workspace-folder-for-shard-${index}`),
    })
    expect(shard.exitCode, shard.all).toBe(0)
    expect((await readFile(path.join(sharded.outDir, `runs.shard-${index}-of-2.jsonl`), 'utf8')).trim().split('\n').length).toBeGreaterThan(0)
  }
  const merged = await sharded.vitest(['--merge-reports', blobs])
  expect(merged.exitCode, merged.all).toBe(0)

  // The same runs, measured alike: everything but their clock readings.
  const runs = await sharded.runs()
  expect(runs.every((run) => run.outcome === 'solved' && typeof run.costUsd === 'number' && run.costUsd > 0)).toBe(true)
  expect(runs.map(measured).sort(byOrder)).toEqual((await unsharded.runs()).map(measured).sort(byOrder))

  const expected = await reports(unsharded)
  const actual = await reports(sharded)
  for (const name of REPORTS) {
    const [mine, theirs] = [setWallTimesAside(name, actual[name]!), setWallTimesAside(name, expected[name]!)]
    expect(mine.text, name).toBe(theirs.text)
    // One wall time per arm was set aside, and each is a measure over that arm's two runs.
    expect(mine.wallTimes, name).toHaveLength(2)
    for (const value of [...mine.wallTimes, ...theirs.wallTimes])
      expect(value, name).toMatch(name === 'report.json' ? /"runs": 2,\s*"of": 2/ : /^[\d.]+ \(mean [\d.]+; 2\/2 runs\)$/)
  }
})
