import { readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { harvest } from '../../../src/curate/harvest/harvest.ts'
import { buildRule } from '../../../src/curate/harvest/rule.ts'
import type { SingleRepositoryFile } from '../../../src/curate/harvest/candidates-file.ts'
import { buildRepo, NODE_TEST_COMMAND } from '../../helpers/throwaway.ts'

// A throwaway repository tested by the real `node --test`: one fix the rule takes, and one commit for each way
// the rule or the harvest turns a commit away.
const calc = (mul: string, extra = '') => `export const add = (a, b) => a + b\nexport const mul = (a, b) => ${mul}\n${extra}`
const calcTest = (tests: string) => `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add, mul } from '../src/calc.js'\n${tests}`
const addTest = `test('adds', () => assert.equal(add(2, 3), 5))\n`
const mulTest = `test('multiplies', () => assert.equal(mul(2, 3), 6))\n`
const negTest = `test('multiplies negatives', () => assert.equal(mul(-2, 3), -6))\n`

let repo: { dir: string; commits: string[] }
let out: string
let file: SingleRepositoryFile
const progress: string[] = []

beforeAll(async () => {
  repo = await buildRepo([
    {
      subject: 'Initial calculator',
      date: '2026-06-01T09:00:00Z',
      files: { 'package.json': '{"type":"module"}\n', 'src/calc.js': calc('a + b'), 'test/calc.test.js': calcTest(addTest) },
    },
    { subject: 'fix: multiplying adds instead', date: '2026-07-02T09:00:00Z', files: { 'src/calc.js': calc('a * b'), 'test/calc.test.js': calcTest(addTest + mulTest) } },
    { subject: 'feat: subtraction', files: { 'src/sub.js': 'export const sub = (a, b) => a - b\n' } },
    { subject: 'fix: a change without a test', files: { 'src/sub.js': 'export const sub = (a, b) => a - b // checked\n' } },
    { subject: 'fix: negatives already worked', files: { 'src/calc.js': calc('a * b', '// negatives too\n'), 'test/calc.test.js': calcTest(addTest + mulTest + negTest) } },
    {
      subject: 'Fix: four files at once',
      files: { 'src/a.js': '1\n', 'src/b.js': '2\n', 'src/c.js': '3\n', 'src/d.js': '4\n', 'test/calc.test.js': calcTest(`${addTest + mulTest + negTest}// more\n`) },
    },
  ])
  out = path.join(repo.dir, '..', `${path.basename(repo.dir)}-candidates.json`)
  file = await harvest({
    repo: repo.dir,
    rule: buildRule({ since: '2026-07-01', source: ['src/**/*.js'], tests: ['test/**/*.test.js'] }),
    testCommand: NODE_TEST_COMMAND,
    out,
    jobs: 2,
    progress: (line) => progress.push(line),
  })
})

afterAll(async () => {
  await rm(repo.dir, { recursive: true, force: true })
  await rm(out, { force: true })
  if (process.env.KEEP_HARVEST === undefined) await rm(out.replace(/\.json$/, '.logs'), { recursive: true, force: true })
})

describe('harvest with node --test', () => {
  it('keeps the fix whose new test fails before and passes after, with the old test as PASS_TO_PASS', () => {
    expect(file.candidates).toHaveLength(1)
    const [candidate] = file.candidates
    expect(candidate).toMatchObject({
      fix: repo.commits[1],
      base: repo.commits[0],
      subject: 'fix: multiplying adds instead',
      gold_files: ['src/calc.js'],
      test_files: ['test/calc.test.js'],
      FAIL_TO_PASS: ['multiplies'],
      PASS_TO_PASS: ['adds'],
      not_passing_after: [],
      notes: [],
    })
  })

  it('drops the fix whose tests already passed before it, saying so', () => {
    expect(file.dropped).toEqual([expect.objectContaining({ fix: repo.commits[4], reason: expect.stringMatching(/^no FAIL_TO_PASS test/) })])
  })

  it('rejects the commits the rule turns away, each with its reason, and ignores subjects that do not start with "fix"', () => {
    expect(file.scanned).toBe(6)
    expect(file.matched).toBe(4)
    expect(file.rejected.map((r) => [r.fix, r.reason])).toEqual([
      [repo.commits[3], expect.stringMatching(/changes no test file/)],
      [repo.commits[5], expect.stringMatching(/changes 4 source files \(the rule allows at most 3\)/)],
    ])
  })

  it('rejects a fix committed before --since', async () => {
    const early = await harvest({
      repo: repo.dir,
      rule: buildRule({ since: '2026-07-03', source: ['src/**/*.js'], tests: ['test/**/*.test.js'] }),
      testCommand: NODE_TEST_COMMAND,
      out: path.join(os.tmpdir(), `${path.basename(repo.dir)}-early.json`),
      logDir: path.join(os.tmpdir(), `${path.basename(repo.dir)}-early.logs`),
    })
    expect(early.rejected.find((r) => r.fix === repo.commits[1])?.reason).toMatch(/^committed 2026-07-02T09:00:00\+00:00, before 2026-07-03T00:00:00.000Z \(--since\)$/)
    await rm(path.join(os.tmpdir(), `${path.basename(repo.dir)}-early.json`), { force: true })
    await rm(path.join(os.tmpdir(), `${path.basename(repo.dir)}-early.logs`), { recursive: true, force: true })
  })

  it('writes the candidates file and a harvest log per harvested commit, showing both runs', async () => {
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(file)
    const log = await readFile(path.join(path.dirname(out), file.candidates[0]!.log), 'utf8')
    expect(log).toContain('## before the fix (in <work>/before)')
    expect(log).toMatch(/failed\s+multiplies/)
    expect(log).toContain('## after the fix (in <work>/after)')
    expect(log).toMatch(/passed\s+multiplies/)
    expect(log).toContain('CANDIDATE: 1 FAIL_TO_PASS, 1 PASS_TO_PASS')
    const droppedLog = await readFile(path.join(path.dirname(out), file.dropped[0]!.log), 'utf8')
    expect(droppedLog).toContain('DROPPED: no FAIL_TO_PASS test')
  })

  it('reports progress: the scan, then one line per harvested commit', () => {
    expect(progress[0]).toMatch(/^scanned 6 commit\(s\): 4 subject\(s\) match/)
    expect(progress.filter((line) => /^\[\d\/2\] [0-9a-f]{10} /.test(line))).toHaveLength(2)
  })
})
