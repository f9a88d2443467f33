import { existsSync } from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, repoRoot, simpleTasks, VITEST_BIN } from '../helpers/experiment-fixture.ts'

// Real Vitest processes with the options a Vitest user types out of habit.

/** The (start, end) of each task's runs, from the records. */
function taskSpans(runs: Array<Record<string, unknown>>): Array<{ task: string; start: number; end: number }> {
  const byTask = new Map<string, { start: number; end: number }>()
  for (const run of runs) {
    const start = Date.parse(String(run.startedAt))
    const end = Date.parse(String(run.finishedAt))
    const span = byTask.get(String(run.task))
    byTask.set(String(run.task), span === undefined ? { start, end } : { start: Math.min(span.start, start), end: Math.max(span.end, end) })
  }
  return [...byTask].map(([task, span]) => ({ task, ...span }))
}

function overlaps(spans: Array<{ start: number; end: number }>): boolean {
  return spans.some((a, i) => spans.some((b, j) => i !== j && a.start < b.end && b.start < a.end))
}

describe('options that would bias a measurement are refused, with one line and nothing recorded', () => {
  for (const [option, why] of [
    [['--retry', '1'], '--retry is refused for experiment "fixture": Vitest would run an unsolved run again until it passes'],
    [['--sequence.shuffle'], '--sequence.shuffle is refused for experiment "fixture": its runs are declared in the pre-registered seeded order'],
    [['--sequence.concurrent'], '--sequence.concurrent is refused for experiment "fixture": a task\'s runs would share one worker at once'],
  ] as const) {
    test(option.join(' '), async () => {
      const fixture = await createExperimentFixture(simpleTasks(1))
      const result = await fixture.vitest([...option])
      expect(result.exitCode).toBe(1)
      const lines = String(result.stderr)
        .split('\n')
        .filter((line) => line.startsWith('task-outcome: '))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain(why)
      expect(String(result.all)).not.toMatch(/\n\s+at /)
      expect(existsSync(path.join(fixture.outDir, 'runs.jsonl'))).toBe(false)
    })
  }
})

describe('an experiment never watches', () => {
  test('`vitest watch` runs every run once, says experiments do not watch, and exits by itself', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    const watch = execa(process.execPath, [VITEST_BIN, 'watch', '--config', 'test/fixtures/experiment.config.ts', '--project', 'fixture'], {
      cwd: repoRoot,
      env: { TASK_OUTCOME_EXPERIMENT: fixture.experimentFile, TASK_OUTCOME_ROOT: fixture.root, NO_COLOR: '1' },
      reject: false,
      all: true,
      timeout: 120_000,
    })
    const result = await watch
    expect(result.timedOut).toBe(false)
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toContain('task-outcome: experiments do not watch: this runs once, as `vitest run` does, and exits')
    const runs = await fixture.runs()
    expect(runs).toHaveLength(8)
    expect(new Set(runs.map((run) => `${run.task}/${run.arm}/${run.seed}`)).size).toBe(8)
  })
})

describe('--maxWorkers is a resource limit and is honoured', () => {
  test('--maxWorkers=1 runs one task at a time where the experiment says 2', { timeout: 400_000 }, async () => {
    const tasks = simpleTasks(3, 0.6)
    const parallel = await createExperimentFixture(tasks, { maxWorkers: 2, seeds: 1 })
    expect((await parallel.vitest()).exitCode).toBe(0)
    expect(overlaps(taskSpans(await parallel.runs()))).toBe(true)

    const serial = await createExperimentFixture(tasks, { maxWorkers: 2, seeds: 1 })
    const result = await serial.vitest(['--maxWorkers=1'])
    expect(result.exitCode, result.all).toBe(0)
    const spans = taskSpans(await serial.runs())
    expect(spans).toHaveLength(3)
    expect(overlaps(spans)).toBe(false)
  })

  // Vitest 5 fills in a default for the root's maxWorkers (one less than the cores) where Vitest 4.1 leaves it unset;
  // that default must not override the experiment's. With the test above, this fails on any number of cores.
  test("without --maxWorkers, the experiment's own maxWorkers holds: 1 runs one task at a time", { timeout: 400_000 }, async () => {
    const fixture = await createExperimentFixture(simpleTasks(3, 0.6), { maxWorkers: 1, seeds: 1 })
    const result = await fixture.vitest()
    expect(result.exitCode, result.all).toBe(0)
    const spans = taskSpans(await fixture.runs())
    expect(spans).toHaveLength(3)
    expect(overlaps(spans)).toBe(false)
  })
})

describe('an experiment without task folders', () => {
  // The repository's own config: its `pilot` and `smoke` experiments are the template, with no task folders yet.
  const env = { NO_COLOR: '1', CI: '1' }

  test('is an error when --project names it', async () => {
    const named = await execa(process.execPath, [VITEST_BIN, 'list', '--project', 'pilot', '--project', 'examples'], { cwd: repoRoot, env, reject: false, all: true })
    expect(named.exitCode, named.all).toBe(1)
    expect(named.stderr).toContain('task-outcome: experiment "pilot" has no task folders in tasks/pilot. Make them first')
  })

  test('is skipped with a warning when it is not named: `vitest list` and `vitest run` of the others work', { timeout: 400_000 }, async () => {
    for (const command of ['list', 'run']) {
      const result = await execa(
        process.execPath,
        [VITEST_BIN, command, '--project', 'examples', '--project', 'p*', '-t', command === 'list' ? 'gold › seed 1' : 'no case has this name'],
        { cwd: repoRoot, env, reject: false, all: true },
      )
      expect(result.exitCode, result.all).toBe(0)
      expect(result.all).toContain('task-outcome: experiment "pilot" has no task folders in tasks/pilot: skipped.')
      if (command === 'list') expect(result.all).toContain('001-greeting-punctuation › gold › seed 1')
    }
  })
})
