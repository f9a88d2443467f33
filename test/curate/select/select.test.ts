import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ProblemsError, SpecError } from '../../../src/errors.ts'
import { harvest } from '../../../src/curate/harvest/harvest.ts'
import { buildRule } from '../../../src/curate/harvest/rule.ts'
import type { SingleRepositoryFile } from '../../../src/curate/harvest/candidates-file.ts'
import { loadTaskSet } from '../../../src/tasks/load.ts'
import { planDraw, select } from '../../../src/curate/select/select.ts'
import { removeTemplate } from '../../../src/workspace/template.ts'
import { buildRepo, NODE_TEST_COMMAND } from '../../helpers/throwaway.ts'

// A throwaway repository tested by the real `node --test`, with two fixes: one whose tests are stable, and one
// whose test file holds a flaky test (it fails before the fix once a file outside the repository says "select"; the
// test commands run in the oracle's sandbox, which sees that file only because its folder is on PATH, read-only):
// the first harvest sees it pass before and after the fix (PASS_TO_PASS), the second harvest sees it fail before
// and pass after (FAIL_TO_PASS), so select must reject that candidate as flaky.
const HEAD = "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\n"

let scratch: string
let repo: { dir: string; commits: string[] }
let candidatesFile: string
let candidates: SingleRepositoryFile
let stable: string
let flaky: string
let phase: string
let savedPath: string | undefined

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'select-test-'))
  await mkdir(path.join(scratch, 'phase-bin'))
  phase = path.join(scratch, 'phase-bin', 'phase')
  await writeFile(phase, 'harvest')
  savedPath = process.env.PATH
  process.env.PATH = `${path.dirname(phase)}${path.delimiter}${process.env.PATH ?? ''}`
  const flakyTest =
    `import { readFileSync } from 'node:fs'\nimport { lower } from '../src/lower.js'\n${HEAD}` +
    `const selecting = readFileSync(${JSON.stringify(phase)}, 'utf8') === 'select'\n` +
    `test('sometimes', () => assert.ok(!selecting || lower('AB') === 'ab'))\n` +
    `test('lowers', () => assert.equal(lower('AB'), 'ab'))\n`
  repo = await buildRepo(
    [
      {
        subject: 'Initial',
        files: {
          'package.json': '{"type":"module"}\n',
          'src/upper.js': 'export const upper = (s) => s\n',
          'src/lower.js': 'export const lower = (s) => s\n',
          'test/upper.test.js': `import { upper } from '../src/upper.js'\n${HEAD}test('keeps empty', () => assert.equal(upper(''), ''))\n`,
          'test/lower.test.js': `import { lower } from '../src/lower.js'\n${HEAD}test('keeps empty lower', () => assert.equal(lower(''), ''))\n`,
        },
      },
      {
        subject: 'fix: upper leaves text as it was',
        files: {
          'src/upper.js': 'export const upper = (s) => s.toUpperCase()\n',
          'test/upper.test.js': `import { upper } from '../src/upper.js'\n${HEAD}test('keeps empty', () => assert.equal(upper(''), ''))\ntest('uppers', () => assert.equal(upper('ab'), 'AB'))\n`,
        },
      },
      { subject: 'fix: lower leaves text as it was', files: { 'src/lower.js': 'export const lower = (s) => s.toLowerCase()\n', 'test/lower.test.js': flakyTest } },
    ],
    'select-repo-',
  )
  ;[, stable, flaky] = repo.commits as [string, string, string]
  candidatesFile = path.join(scratch, 'candidates.json')
  candidates = await harvest({
    repo: repo.dir,
    rule: buildRule({ source: ['src/**/*.js'], tests: ['test/**/*.test.js'] }),
    testCommand: NODE_TEST_COMMAND,
    out: candidatesFile,
    jobs: 1,
  })
  await mkdir(path.join(scratch, 'prompts'))
  await writeFile(path.join(scratch, 'prompts', `${stable.slice(0, 8)}-upper.md`), 'Turning text into capitals gives it back unchanged.\n')
  await writeFile(path.join(scratch, 'prompts', `${flaky.slice(0, 8)}.md`), 'Turning text into small letters gives it back unchanged.\n')
})

// Every select's second harvest of the flaky fix sees it fail before the fix.
beforeEach(async () => {
  await writeFile(phase, 'select')
})

afterAll(async () => {
  process.env.PATH = savedPath
  for (const candidate of candidates.candidates) await removeTemplate(repo.dir, candidate.base)
  await rm(repo.dir, { recursive: true, force: true })
  await rm(scratch, { recursive: true, force: true })
})

describe('select', () => {
  it('starts from a first harvest in which the flaky test looked like PASS_TO_PASS', () => {
    expect(candidates.candidates.map((c) => c.fix)).toEqual([stable, flaky])
    expect(candidates.candidates[1]!.FAIL_TO_PASS).toEqual(['lowers'])
    expect(candidates.candidates[1]!.PASS_TO_PASS).toEqual(['sometimes'])
  })

  it("rejects the flaky candidate on its second harvest, keeps the stable one, and writes DESIGN's task folder", async () => {
    const out = path.join(scratch, 'set')
    const lines: string[] = []
    const selection = await select({ candidates: candidatesFile, out, prompts: path.join(scratch, 'prompts'), count: 2, jobs: 1, progress: (line) => lines.push(line) })

    const flakyEntry = selection.walk.find((entry) => entry.fix === flaky)
    expect(flakyEntry?.status).toBe('flaky')
    expect(flakyEntry?.reason).toContain('FAIL_TO_PASS was [lowers], now [lowers, sometimes]')
    expect(selection.tasks).toEqual(['001-upper-leaves-text-as-it-was'])
    expect(lines.some((line) => line.includes('only 1 of the 2 requested'))).toBe(true)

    const dir = path.join(out, '001-upper-leaves-text-as-it-was')
    expect((await readdir(dir, { recursive: true })).sort()).toEqual(
      ['README.md', 'metadata.json', 'oracle', 'oracle/test', 'oracle/test/upper.test.js', 'solution', 'solution/gold.patch', 'task.md'].sort(),
    )
    expect(await readFile(path.join(dir, 'task.md'), 'utf8')).toBe('Turning text into capitals gives it back unchanged.\n')
    expect(await readFile(path.join(dir, 'oracle/test/upper.test.js'), 'utf8')).toContain("test('uppers'")
    expect(await readFile(path.join(dir, 'solution/gold.patch'), 'utf8')).toContain('+export const upper = (s) => s.toUpperCase()')

    const [task] = await loadTaskSet(out)
    expect(task?.kind).toBe('git-fix')
    if (task?.kind !== 'git-fix') return
    expect(task.repo).toBe(repo.dir)
    expect(task.metadata).toMatchObject({
      id: '001',
      slug: 'upper-leaves-text-as-it-was',
      base: repo.commits[0],
      fix: stable,
      gold_files: ['src/upper.js'],
      test_files: ['test/upper.test.js'],
      FAIL_TO_PASS: ['uppers'],
      PASS_TO_PASS: ['keeps empty'],
      test_command: NODE_TEST_COMMAND,
      test_globs: ['test/**/*.test.js'],
    })
    expect(JSON.parse(await readFile(path.join(out, 'selection.json'), 'utf8'))).toEqual(selection)
  })

  it('refuses to write over task folders already there unless told to replace them', async () => {
    const out = path.join(scratch, 'set')
    await expect(select({ candidates: candidatesFile, out, prompts: path.join(scratch, 'prompts'), count: 1 })).rejects.toThrow(
      /already holds 1 task folder\(s\) \(001-upper-leaves-text-as-it-was\): remove them, or pass --replace/,
    )
  })

  it('refuses, before writing anything or running any test, when a candidate the walk reaches first has no prompt', async () => {
    const out = path.join(scratch, 'no-prompts')
    const error = await select({ candidates: candidatesFile, out, prompts: path.join(scratch, 'empty-prompts'), count: 1 }).catch((e: unknown) => e)
    expect((error as ProblemsError).problems).toEqual([{ file: path.join(scratch, 'empty-prompts'), message: 'no such folder: write one <commit>.md per candidate there' }])
    await mkdir(path.join(scratch, 'empty-prompts'))
    const progress: string[] = []
    const missing = await select({ candidates: candidatesFile, out, prompts: path.join(scratch, 'empty-prompts'), count: 1, progress: (line) => progress.push(line) }).catch(
      (e: unknown) => e,
    )
    expect(missing).toBeInstanceOf(ProblemsError)
    expect((missing as ProblemsError).message).toMatch(/1 of the 1 candidate\(s\) the walk reaches first have no prompt; .*\(no test was run\)/)
    // The walk's order follows the commit ids, which differ from one generated repository to the next.
    const [first] = (await planDraw({ candidates: candidatesFile, out })).order
    expect((missing as ProblemsError).message).toMatch(new RegExp(`empty-prompts/${first!.fix.slice(0, 12)}\\.md: missing: "${first!.subject}"`))
    // Only the walk order was said: no candidate was harvested again before the refusal.
    expect(progress).toHaveLength(1)
    expect(progress[0]).toMatch(/^walk order \(seed /)
    await expect(readdir(out)).rejects.toThrow()
  })

  it('refuses a prompt that names a gold file, saying which prompt, line and name, before harvesting anything', async () => {
    const prompts = path.join(scratch, 'naming-prompts')
    await mkdir(prompts)
    await writeFile(path.join(prompts, `${stable.slice(0, 10)}.md`), 'Capitals do not work.\nSee the upper module.\n')
    const error = await select({ candidates: candidatesFile, out: path.join(scratch, 'refused'), prompts, count: 1 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProblemsError)
    expect((error as ProblemsError).problems).toEqual([
      {
        file: path.join(prompts, `${stable.slice(0, 10)}.md`),
        field: 'line 2',
        message:
          'names the gold file src/upper.js by its module name "upper": describe the symptom a user sees instead (or, when the symptom cannot be said without the word, allow it with a reason in the front matter: `allow: { upper: <why> }`)',
      },
    ])
  })

  it('accepts a module name the prompt allows with a reason, keeps the front matter from the agent and records it in metadata.json', async () => {
    const prompts = path.join(scratch, 'allowing-prompts')
    await mkdir(prompts)
    const frontMatter = '---\nallow:\n  upper: users call the capitals function "upper"; the symptom is its name\n---\n'
    await writeFile(path.join(prompts, `${stable.slice(0, 10)}.md`), `${frontMatter}Calling upper gives the text back unchanged.\n`)
    // Walked first or not (the order follows the commit ids), the flaky fix needs its prompt too; its second harvest rejects it.
    await writeFile(path.join(prompts, `${flaky.slice(0, 8)}.md`), 'Turning text into small letters gives it back unchanged.\n')
    const out = path.join(scratch, 'allowed')
    const selection = await select({ candidates: candidatesFile, out, prompts, count: 1, jobs: 1 })
    const dir = path.join(out, selection.tasks[0]!)
    expect(await readFile(path.join(dir, 'task.md'), 'utf8')).toBe('Calling upper gives the text back unchanged.\n')
    expect(JSON.parse(await readFile(path.join(dir, 'metadata.json'), 'utf8')).allow).toEqual([
      { word: 'upper', reason: 'users call the capitals function "upper"; the symptom is its name' },
    ])
    const [task] = await loadTaskSet(out)
    expect(task?.kind === 'git-fix' && task.metadata.allow).toEqual([{ word: 'upper', reason: 'users call the capitals function "upper"; the symptom is its name' }])
  })

  it('skips excluded candidates, recording the reason', async () => {
    const exclusions = path.join(scratch, 'exclusions.json')
    await writeFile(exclusions, JSON.stringify({ exclusions: [{ commit: flaky.slice(0, 9), reason: 'c', why: 'stands in for a test that needs a name the fix adds' }] }))
    const out = path.join(scratch, 'excluded')
    const selection = await select({ candidates: candidatesFile, out, prompts: path.join(scratch, 'prompts'), exclusions, count: 2, jobs: 1 })
    expect(selection.walk.find((entry) => entry.fix === flaky)).toMatchObject({
      status: 'excluded',
      reason: expect.stringMatching(/^\(c\) the FAIL_TO_PASS tests depend on something a symptom can't reach.*: stands in for a test/),
    })
    expect(selection.tasks).toEqual(['001-upper-leaves-text-as-it-was'])
    expect(selection.exclusions).toBe('../exclusions.json')
  })

  it('names the option that is wrong', async () => {
    await expect(select({ candidates: candidatesFile, out: path.join(scratch, 'x'), count: 0 })).rejects.toThrow(SpecError)
    await expect(select({ candidates: path.join(scratch, 'nope.json'), out: path.join(scratch, 'x') })).rejects.toThrow(/no such file: run `task-outcome harvest --out` first/)
  })
})
