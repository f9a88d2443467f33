import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, test } from 'vitest'
import { RunRecordSchema } from '../../src/runs/record.ts'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

describe('an experiment project', () => {
  test('records one line per (task, arm, seed) with every field DESIGN names', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    const result = await fixture.vitest()
    expect(result.exitCode, result.all).toBe(0)
    const runs = await fixture.runs()
    expect(runs).toHaveLength(2 * 2 * 2)
    for (const run of runs) expect(RunRecordSchema.parse(run)).toEqual(run)
    const keys = runs.map((run) => `${run.task}/${run.arm}/${run.seed}`).sort()
    expect(keys).toEqual([
      '001-task-1/gold/1',
      '001-task-1/gold/2',
      '001-task-1/noop/1',
      '001-task-1/noop/2',
      '002-task-2/gold/1',
      '002-task-2/gold/2',
      '002-task-2/noop/1',
      '002-task-2/noop/2',
    ])
    expect(runs.filter((run) => run.arm === 'gold').every((run) => run.outcome === 'solved')).toBe(true)
    expect(runs.filter((run) => run.arm === 'noop').every((run) => run.outcome === 'unsolved')).toBe(true)
    expect(runs.find((run) => run.arm === 'gold')?.changedFiles).toEqual(['value.txt'])
    expect(new Set(runs.map((run) => run.order)).size).toBe(runs.length)
  })
})

describe('one invocation', () => {
  test('prepares the experiment once and reads runs.jsonl twice (at the start and at the end), fresh and resumed', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    const runsFile = path.join(fixture.outDir, 'runs.jsonl')
    for (const invocation of ['fresh', 'resumed']) {
      const log = path.join(fixture.root, `channels-${invocation}.log`)
      const preload = pathToFileURL(path.resolve('test/helpers/channel-log.mjs')).href
      const vitest = fixture.vitest([], { env: { TASK_OUTCOME_CHANNEL_LOG: log, NODE_OPTIONS: `--import=${preload}` } })
      const result = await vitest
      expect(result.exitCode, result.all).toBe(0)
      const main = (await readFile(log, 'utf8'))
        .split('\n')
        .filter((line) => line.startsWith(`${vitest.pid} `))
        .map((line) => line.split(' ', 3))
      expect(
        main.filter(([, channel]) => channel === 'task-outcome:experiment-prepared'),
        invocation,
      ).toHaveLength(1)
      const reads = main.filter(([, channel, message]) => channel === 'task-outcome:runs-read' && (JSON.parse(message!) as { file: string }).file === runsFile)
      expect(reads, invocation).toHaveLength(2)
    }
    expect(await fixture.runs()).toHaveLength(8)
  })
})
