import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rebuildForCheck, samplePaths, type SampleManifest } from '../../samples/build.ts'
import { readCandidatesFile, ruleFromRecord, type SingleRepositoryFile } from '../../src/curate/harvest/candidates-file.ts'
import { harvest } from '../../src/curate/harvest/harvest.ts'
import { select, type Selection } from '../../src/curate/select/select.ts'
import { readerGit } from '../../src/workspace/repository.ts'

// The bundled sample repository the demo runs on: its bundle must be what its readable history builds, and
// harvesting and selecting it must give the committed tasks/demo.
const paths = samplePaths('ledgerline')
const committed = JSON.parse(await readFile(paths.manifest, 'utf8')) as SampleManifest
const gitVersion = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim()
const demo = path.resolve('tasks/demo')

/** What the selection rule must find in the sample, by subject: each fix with its FAIL_TO_PASS tests. */
const EXPECTED_CANDIDATES: Record<string, string[]> = {
  'fix: quoted descriptions containing commas': ['splitting rows > keeps commas inside a quoted field'],
  'fix: amounts in parentheses are negative': ['parsing amounts > reads amounts in parentheses as negative'],
  'fix: thousands separators in amounts': ['parsing amounts > reads thousands separators'],
  'fix: median of an even number of entries': ['summaries > gives the mean of the two middle amounts as the median of an even number'],
  'fix: minus sign of negative money': ['formatting money > puts the minus sign of a negative amount before the symbol'],
  'fix: summaries leave out the last day of a date range': ['summaries > keeps the entries of the last day of a date range'],
  'fix: amounts ending in half a cent round down': ['formatting money > rounds half a cent up'],
  'fix: day and month swapped in slash dates': ['parsing dates > reads slash dates day first'],
  'fix: statements with separate debit and credit columns': ['reading statements > reads separate debit and credit columns'],
  'fix: categories differing only in capitals counted apart': ['summaries > counts categories that differ only in capitals as one, under the first spelling'],
  // Its test imports isValidDate, which the fix adds: the whole file fails to load before it (excluded under (c)).
  'fix: impossible calendar dates accepted': [
    'parsing dates > knows leap years',
    'parsing dates > reads ISO dates',
    'parsing dates > reads slash dates day first',
    'parsing dates > refuses a thirteenth month',
    'parsing dates > refuses days a month does not have',
    'parsing dates > refuses text that is not a date',
  ],
  'fix: report columns misaligned for long category names': ['report tables > lines up the amounts when a category name is longer than the header'],
  'fix: headers in capitals are not recognised': ['reading statements > reads column names in any case'],
}

let scratch: string
let harvested: SingleRepositoryFile
let candidatesFile: string
let rebuilt: Awaited<ReturnType<typeof rebuildForCheck>>

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'ledgerline-'))
  rebuilt = await rebuildForCheck('ledgerline')
  const demoCandidates = await readCandidatesFile(path.join(demo, 'candidates.json'))
  candidatesFile = path.join(scratch, 'candidates.json')
  harvested = await harvest({
    repo: demoCandidates.sources[0]!.repo,
    rule: ruleFromRecord(demoCandidates.sources[0]!.rule),
    testCommand: demoCandidates.sources[0]!.test_command,
    out: candidatesFile,
    jobs: 2,
  })
})

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true })
})

describe('the ledgerline sample repository', () => {
  it('rebuilds from its readable history to exactly the committed commits', async () => {
    const { fresh } = rebuilt
    expect(fresh.commits).toEqual(committed.commits)
    expect(fresh.tip).toBe(committed.tip)
    const heads = await readerGit(scratch).raw(['bundle', 'list-heads', paths.bundle])
    expect(heads).toContain(`${committed.tip} refs/heads/main`)
    expect(
      createHash('sha256')
        .update(await readFile(paths.bundle))
        .digest('hex'),
    ).toBe(committed.bundleSha256)
  })

  it.skipIf(gitVersion !== committed.git)(`rebuilds the bundle byte for byte (with ${committed.git}; skipped under another git, whose packs may differ)`, async () => {
    expect(rebuilt.freshBundle.equals(await readFile(paths.bundle))).toBe(true)
  })
})

describe('harvesting the sample', () => {
  it('finds exactly the fix commits the rule should find, each with the right FAIL_TO_PASS tests', () => {
    expect(Object.fromEntries(harvested.candidates.map((c) => [c.subject, c.FAIL_TO_PASS]))).toEqual(EXPECTED_CANDIDATES)
    expect(harvested.candidates.find((c) => c.subject === 'fix: impossible calendar dates accepted')?.notes[0]).toMatch(/exclusion reason c/)
  })

  it('turns away the fixes the rule rejects, each for its reason', () => {
    expect(Object.fromEntries(harvested.rejected.map((r) => [r.subject, r.reason]))).toEqual({
      'fix: blank lines at the end of a statement': expect.stringMatching(/before 2026-07-01/),
      'fix: typo in the README': expect.stringMatching(/^changes no source file/),
      'fix: currency symbol option ignored in reports': expect.stringMatching(/^changes 4 source files/),
      'fix: thousands separators in amounts over a million': expect.stringMatching(/^changes no test file/),
    })
    expect(harvested.dropped.map((d) => [d.subject, d.reason])).toEqual([['fix: average of an empty statement', expect.stringMatching(/^no FAIL_TO_PASS test/)]])
    expect(harvested.scanned).toBe(committed.commits.length)
  })

  it('gives the committed tasks/demo/candidates.json, apart from where the logs went', async () => {
    const committedFile = (await readCandidatesFile(path.join(demo, 'candidates.json'))).data as SingleRepositoryFile
    const withoutLogs = (file: SingleRepositoryFile) => ({
      ...file,
      repo: null,
      candidates: file.candidates.map(({ log: _log, ...candidate }) => candidate),
      dropped: file.dropped.map(({ log: _log, ...dropped }) => dropped),
    })
    expect(withoutLogs(harvested)).toEqual(withoutLogs(committedFile))
  })
})

describe('selecting from the sample', () => {
  const draw = async (seed: number, name: string): Promise<Selection> => {
    const out = path.join(scratch, name)
    await cp(path.join(demo, 'prompts'), path.join(out, 'prompts'), { recursive: true })
    await cp(path.join(demo, 'exclusions.json'), path.join(out, 'exclusions.json'))
    return select({ candidates: candidatesFile, out, seed, count: 8, jobs: 2 })
  }

  it('gives the committed task set for the pre-registered seed, and another set for another seed', async () => {
    const committedSelection = JSON.parse(await readFile(path.join(demo, 'selection.json'), 'utf8')) as Selection
    const same = await draw(20261014, 'same-seed')
    expect(same.tasks).toEqual(committedSelection.tasks)
    expect(same.walk.map((entry) => [entry.fix, entry.status])).toEqual(committedSelection.walk.map((entry) => [entry.fix, entry.status]))
    for (const task of same.tasks) {
      for (const file of ['task.md', 'metadata.json', 'solution/gold.patch']) {
        const written = await readFile(path.join(scratch, 'same-seed', task, file), 'utf8')
        const inDemo = await readFile(path.join(demo, task, file), 'utf8')
        // fix_date (the contamination flag's input) is written by select since the demo set was committed: additive, optional.
        // repository (the portable name records use) is written by select since then too: additive, optional.
        const metadata = (text: string) => ({ ...JSON.parse(text), repo: null, fix_date: null, repository: null })
        expect(file === 'metadata.json' ? metadata(written) : written).toEqual(file === 'metadata.json' ? metadata(inDemo) : inDemo)
        if (file === 'metadata.json') expect(JSON.parse(written).fix_date).toMatch(/^\d{4}-\d{2}-\d{2}T/)
      }
    }
    const other = await draw(1, 'other-seed')
    const fixes = (selection: Selection) =>
      selection.walk
        .filter((entry) => entry.status === 'selected')
        .map((entry) => entry.fix)
        .sort()
    expect(fixes(other)).not.toEqual(fixes(same))
    expect(fixes(other)).toHaveLength(8)
  })
})
