import { rm } from 'node:fs/promises'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createExperimentFixture, repoRoot, type ExperimentFixture, type FixtureTask } from '../helpers/experiment-fixture.ts'

// A sequential experiment end to end: a `command` agent whose treatment arm costs half the control's on every
// task (a large effect), 12 tasks × 1 seed, looks at ½ and 1 with Pocock spending. At look 1 (6 tasks) every
// difference is negative, p = 2⁻⁶ = 0.0156, below the boundary's level (α(½) = 0.031): the design stops for
// efficacy, and the 6 later tasks' 12 runs are never started.

const tasks: FixtureTask[] = Array.from({ length: 12 }, (_, i) => ({
  id: `${String(i + 1).padStart(3, '0')}-task-${i + 1}`,
  starting: { 'value.txt': 'wrong\n' },
  verify: 'grep -qx right value.txt',
}))

let fixture: ExperimentFixture

beforeAll(async () => {
  fixture = await createExperimentFixture(tasks)
  await fixture.writeScript('agent.sh', 'echo "{\\"status\\":\\"completed\\",\\"costUsd\\":${RUN_COST}}"')
  await fixture.writeExperiment({
    agent: { kind: 'command', bin: './agent.sh' },
    arms: { baseline: { setup: { env: { RUN_COST: '0.2' } } }, cheaper: { setup: { env: { RUN_COST: '0.1' } } } },
    control: 'baseline',
    seeds: 1,
    decision: { sequential: { looks: [0.5, 1], spending: 'pocock' } },
  })
})

afterAll(async () => {
  await rm(fixture.root, { recursive: true, force: true })
})

describe('a sequential design stops the experiment at the look that decides it', () => {
  let first: Awaited<ReturnType<ExperimentFixture['vitest']>>

  it('runs only the first block: the later cases are skipped with the reason, never run', async () => {
    first = await fixture.vitest()
    expect(first.all).toContain('stopped at look 1 of 2: efficacy')
    const runs = await fixture.runs()
    expect(runs).toHaveLength(12)
    expect(new Set(runs.map((run) => run.task))).toEqual(new Set(tasks.slice(0, 6).map((task) => task.id)))
    expect(first.all).toContain('12 skipped by the sequential design (never run, never paid for)')
  }, 600_000)

  it('the verdict names the look, and analyze reproduces it from runs.jsonl and spec.json', async () => {
    expect(first.all).toContain('verdict: supported')
    const analyzed = await execa(process.execPath, ['bin/task-outcome.js', 'analyze', fixture.outDir, '--json'], { cwd: repoRoot, reject: false, all: true })
    const report = JSON.parse(analyzed.stdout) as {
      complete: boolean
      missing: number
      decision: { verdict: string }
      sequential: { stoppedAt: number; stoppedFor: string; skippedRuns: number; adjustedP: number }
    }
    expect(report).toMatchObject({ complete: true, missing: 0, decision: { verdict: 'supported' }, sequential: { stoppedAt: 1, stoppedFor: 'efficacy', skippedRuns: 12 } })
    expect(report.sequential.adjustedP).toBe(2 ** -6)
  }, 120_000)

  it('a re-run runs nothing: the first block is recorded, the rest stays skipped', async () => {
    const again = await fixture.vitest()
    expect(again.all).toContain('0 run(s) recorded, 12 already recorded')
    expect(again.all).toContain('12 skipped by the sequential design')
    expect(await fixture.runs()).toHaveLength(12)
  }, 600_000)
})
