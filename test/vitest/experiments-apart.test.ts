import path from 'node:path'
import { execa } from 'execa'
import { expect, test } from 'vitest'
import { createExperimentFixture, repoRoot, simpleTasks, type ExperimentFixture } from '../helpers/experiment-fixture.ts'
import { writeRecordedRuns } from '../helpers/runs-file.ts'

/** `vitest run` over several fixtures' experiments at once, each its own project. */
function vitestOver(fixtures: readonly ExperimentFixture[]) {
  return execa('npx', ['vitest', 'run', '--config', 'test/fixtures/experiments.config.ts'], {
    cwd: repoRoot,
    env: { TASK_OUTCOME_EXPERIMENTS: JSON.stringify(fixtures.map((fixture) => ({ file: fixture.experimentFile, root: fixture.root }))), NO_COLOR: '1', CI: '1' },
    reject: false,
    all: true,
  })
}

test('an analysis error in one experiment of an invocation is reported for that one; the other is concluded', async () => {
  const broken = await createExperimentFixture(simpleTasks(2), { name: 'broken', seeds: 1 })
  const first = await vitestOver([broken])
  expect(first.exitCode, first.all).toBe(0)
  // Records an older harness let through: a cost of 1e300, which no analysis can add up.
  const runs = await broken.runs()
  await writeRecordedRuns(
    path.join(broken.outDir, 'runs.jsonl'),
    runs.map((run, index) => (index === 0 ? { ...run, costUsd: 1e300 } : run)),
  )
  const healthy = await createExperimentFixture(simpleTasks(2), { name: 'healthy', seeds: 1 })

  const both = await vitestOver([broken, healthy])
  expect(both.exitCode).not.toBe(0)
  expect(both.all).toMatch(/task-outcome · broken: no conclusion: the analysis failed: RangeError: .*Infinity/)
  expect(both.all).toMatch(/task-outcome · healthy · .*runs\.jsonl\n/)
  expect(both.all).toMatch(/healthy[\s\S]*verdict: /)
  expect(await healthy.runs()).toHaveLength(4)
})
