import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { expect, test } from 'vitest'
import { createExperimentFixture, repoRoot, simpleTasks } from '../helpers/experiment-fixture.ts'

// End to end with real parts: a real `vitest run` of a fixture experiment (gold against noop
// on three folder tasks with real verify.sh oracles), the real reporter calling
// concludeExperiment, then the real CLI on the folder it wrote.

test('when a complete suite ends the reporter prints the verdict block and writes the reports; analyze reproduces report.json byte for byte', async () => {
  const fixture = await createExperimentFixture(simpleTasks(3))
  const run = await fixture.vitest()
  expect(run.exitCode, run.all).toBe(0)
  // gold and noop cost nothing: every d is 0, so no cost reduction can be shown, whatever gold solves.
  expect(run.all).toContain('verdict: not supported  [EXAMPLE: Built-in agents with known answers; these numbers demonstrate the harness.]')
  expect(run.all).toContain('Not supported: "gold lowers the agent\'s cost per task without lowering its solve rate (against noop)". No cost reduction shown.')
  expect(run.all).toContain('solved: gold 3/3, noop 0/3 (difference +3); McNemar b = 3, c = 0, p = 0.25')
  for (const name of ['report.json', 'report.md', 'report.html']) expect(existsSync(path.join(fixture.outDir, name))).toBe(true)
  const written = await readFile(path.join(fixture.outDir, 'report.json'), 'utf8')
  expect(JSON.parse(written)).toMatchObject({
    experiment: 'fixture',
    complete: true,
    tasks: 3,
    seeds: 2,
    arms: ['noop', 'gold'],
    primary: { statistic: 0, p: 1, n: 0, exact: true },
    solved: { noop: 0, gold: 3 },
    mcnemar: { b: 3, c: 0, p: 0.25 },
    decision: { verdict: 'not supported', supported: false },
  })
  const cli = await execa(process.execPath, ['bin/task-outcome.js', 'analyze', fixture.outDir, '--json'], { cwd: repoRoot, reject: false })
  expect(cli.exitCode, cli.stderr).toBe(0)
  expect(`${cli.stdout}\n`).toBe(written)
})

test('a filtered run leaves the plan incomplete: no verdict, how many runs are missing, and no report written', async () => {
  const fixture = await createExperimentFixture(simpleTasks(2))
  const run = await fixture.vitest(['-t', 'gold'])
  expect(run.exitCode, run.all).toBe(0)
  expect(run.all).toContain('verdict: no verdict')
  expect(run.all).toContain('No verdict: 4 of 8 planned runs are missing.')
  expect(run.all).toContain('Arm noop (the control) has no recorded runs.')
  expect(existsSync(path.join(fixture.outDir, 'report.json'))).toBe(false)
})
