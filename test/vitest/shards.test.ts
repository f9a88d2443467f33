import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { readRuns } from '../../src/runs/store.ts'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

/** What a run measured, without the fields that differ between two invocations (times, and the chain link, which follows the order of recording). */
function measured(run: Record<string, unknown>) {
  const { startedAt: _s, finishedAt: _f, wallMs: _w, prevSha256: _p, ...rest } = run
  return rest
}

const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) => Number(a.order) - Number(b.order)

describe('sharded experiments', () => {
  test('blob shards merged with --merge-reports yield the same records as one unsharded run', async () => {
    const tasks = simpleTasks(3)
    const unsharded = await createExperimentFixture(tasks)
    expect((await unsharded.vitest()).exitCode).toBe(0)

    const sharded = await createExperimentFixture(tasks)
    const blobs = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-blobs-'))
    for (const shard of ['1/2', '2/2']) {
      const result = await sharded.vitest([`--shard=${shard}`, '--reporter=blob', `--outputFile=${path.join(blobs, `blob-${shard.replace('/', '-')}.json`)}`])
      expect(result.exitCode, result.all).toBe(0)
    }
    expect(await sharded.runsText()).toBe('')
    const merged = await sharded.vitest(['--merge-reports', blobs])
    expect(merged.exitCode, merged.all).toBe(0)

    const expected = (await unsharded.runs()).map(measured).sort(byKey)
    const actual = (await sharded.runs()).map(measured).sort(byKey)
    expect(actual).toHaveLength(3 * 2 * 2)
    expect(actual).toEqual(expected)
    expect(readRuns(path.join(sharded.outDir, 'runs.jsonl')).head.lines).toBe(12)
    expect(merged.all).toContain('hash chain of 12 line(s) verified')
  })
})
