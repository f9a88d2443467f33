import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createExperimentFixture, repoRoot, type ExperimentFixture, type FixtureTask } from '../helpers/experiment-fixture.ts'

// A sequential experiment end to end on the real path: the real Claude Code CLI (the pinned dependency) in its
// sandbox against the scripted model server on 127.0.0.1, 10 tasks × 1 seed, looks at ½ and 1 with Hwang–Shih–DeCani
// spending (γ = 2: α(½) = 0.0366). The baseline's sessions must search and read other files before they find the
// one to fix; the treatment's CLAUDE.md names it, so each of its sessions goes straight there: a large effect. At
// look 1 (5 tasks) every difference is negative, p = 2⁻⁵ = 0.031, past the boundary: the design stops for efficacy,
// and the 5 later tasks' 10 runs are never started.

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'] as const

/** Task i: `src/<word>.js` returns the word without its last letter; the prompt does not say which file holds it. */
const tasks: FixtureTask[] = WORDS.map((word, i) => ({
  id: `${String(i + 1).padStart(3, '0')}-${word}-word`,
  prompt: `Running the module's \`word()\` should give "${word}", but it gives the word cut short. Please fix it.\n`,
  starting: {
    [`src/${word}.js`]: `export const word = () => "${word.slice(0, -1)}"\n`,
    'src/util.js': 'export const id = (x) => x\n',
    'src/format.js': 'export const upper = (text) => text.toUpperCase()\n',
    'README.md': `# ${word}\n`,
  },
  verify: `grep -q '"${word}"' src/${word}.js`,
  solve: `sed -i 's/"${word.slice(0, -1)}"/"${word}"/' src/${word}.js`,
}))

let fixture: ExperimentFixture

beforeAll(async () => {
  fixture = await createExperimentFixture(tasks)
  await writeFile(path.join(fixture.setDir, 'notes.md'), `# Project notes\n\n${WORDS.map((word) => `- The ${word} word lives in src/${word}.js.`).join('\n')}\n`)
  await fixture.writeExperiment({
    agent: {
      kind: 'claude-code',
      model: 'claude-sonnet-4-5',
      // No wrong edits (every run solves) and no stray reads when the file is known: the effect is the notes alone.
      options: { scriptedModel: { wrongEditRate: 0, hintedDecoyRate: 0, searches: [1, 2], decoyReads: [1, 2] } },
    },
    arms: { baseline: {}, notes: { setup: { files: { 'CLAUDE.md': 'notes.md' } } } },
    control: 'baseline',
    seeds: 1,
    budgetUsd: 1,
    timeoutSeconds: 120,
    oracleTimeoutSeconds: 60,
    env: { set: { CLAUDE_CODE_MAX_RETRIES: '1' } },
    maxWorkers: 2,
    decision: { sequential: { looks: [0.5, 1], spending: { gamma: 2 } } },
  })
})

afterAll(async () => {
  await rm(fixture.root, { recursive: true, force: true })
})

describe('a sequential design stops a scripted-model experiment at the look that decides it', () => {
  let first: Awaited<ReturnType<ExperimentFixture['vitest']>>

  it('runs only the first block: the later cases are skipped with the reason, never run', async () => {
    // The verbose reporter prints every case, a skipped one with its reason.
    first = await fixture.vitest(['--reporter=verbose'])
    expect(first.exitCode, first.all).toBe(0)
    expect(first.all).toContain('stopped at look 1 of 2: efficacy')
    const runs = await fixture.runs()
    expect(runs).toHaveLength(10)
    expect(new Set(runs.map((run) => run.task))).toEqual(new Set(tasks.slice(0, 5).map((task) => task.id)))
    // The real CLI ran and was billed by the scripted model, and the notes made every treatment session cheaper.
    expect(runs.every((run) => run.solved === true && (run.costUsd as number) > 0)).toBe(true)
    for (const task of tasks.slice(0, 5)) {
      const cost = (arm: string) => runs.find((run) => run.task === task.id && run.arm === arm)!.costUsd as number
      expect(cost('notes'), task.id).toBeLessThan(cost('baseline'))
    }
    expect(first.all).toContain('10 skipped by the sequential design (never run, never paid for)')
    for (const task of tasks.slice(5))
      for (const arm of ['baseline', 'notes']) expect(first.all).toMatch(new RegExp(`${task.id} › ${arm} › seed 1 .*\\[not run: stopped at look 1 of 2: efficacy`))
  }, 900_000)

  it('the verdict and the report files name the look, and analyze reproduces them from runs.jsonl and spec.json', async () => {
    expect(first.all).toContain('verdict: supported')
    const written = await readFile(path.join(fixture.outDir, 'report.json'), 'utf8')
    expect(await readFile(path.join(fixture.outDir, 'report.md'), 'utf8')).toContain('stopped at look 1 of 2: efficacy')
    const analyzed = await execa(process.execPath, ['bin/task-outcome.js', 'analyze', fixture.outDir, '--json'], { cwd: repoRoot, reject: false, all: true })
    expect(analyzed.exitCode, analyzed.all).toBe(0)
    expect(`${analyzed.stdout}\n`).toBe(written)
    const report = JSON.parse(analyzed.stdout) as {
      complete: boolean
      missing: number
      decision: { verdict: string }
      sequential: { stoppedAt: number; stoppedFor: string; skippedRuns: number; recordedAfterStop: number; adjustedP: number }
    }
    expect(report).toMatchObject({
      complete: true,
      missing: 0,
      decision: { verdict: 'supported' },
      sequential: { stoppedAt: 1, stoppedFor: 'efficacy', skippedRuns: 10, recordedAfterStop: 0 },
    })
    // Every difference negative: only the all-negative sign vector reaches V, whatever the magnitudes.
    expect(report.sequential.adjustedP).toBe(2 ** -5)
  }, 120_000)

  it('a re-run runs nothing: the first block is recorded, the rest stays skipped', async () => {
    const before = await fixture.runsText()
    const again = await fixture.vitest(['--reporter=verbose'])
    expect(again.exitCode, again.all).toBe(0)
    expect(again.all).toContain('0 run(s) recorded, 10 already recorded')
    expect(again.all).toContain('10 skipped by the sequential design')
    for (const task of tasks.slice(5))
      for (const arm of ['baseline', 'notes']) expect(again.all).toMatch(new RegExp(`${task.id} › ${arm} › seed 1 .*\\[not run: stopped at look 1 of 2: efficacy`))
    expect(await fixture.runsText()).toBe(before)
  }, 600_000)
})
