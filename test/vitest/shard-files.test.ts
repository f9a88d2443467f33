import { existsSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'
import { waitFor } from '../helpers/wait-for.ts'

// Real Vitest shard processes (`--shard=i/n --reporter=blob`), one of them killed with SIGKILL.

const lines = async (file: string) => (existsSync(file) ? (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '') : [])
const parsed = async (file: string) => (await lines(file)).map((line) => JSON.parse(line) as Record<string, unknown>)

/** What a run measured: key, outcome and cost (times and chain links differ between invocations). */
const measured = (run: Record<string, unknown>) => ({
  task: run.task,
  arm: run.arm,
  seed: run.seed,
  order: run.order,
  outcome: run.outcome,
  costUsd: run.costUsd,
  specSha256: run.specSha256,
})
const byOrder = (a: { order: unknown }, b: { order: unknown }) => Number(a.order) - Number(b.order)

describe('a shard records as it runs', () => {
  test('killed with SIGKILL it keeps its runs; run again it makes only the rest; merged it equals an unsharded run', { timeout: 600_000 }, async () => {
    const tasks = simpleTasks(4, 0.4)
    const unsharded = await createExperimentFixture(tasks)
    expect((await unsharded.vitest()).exitCode).toBe(0)

    const sharded = await createExperimentFixture(tasks)
    const blobs = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-blobs-'))
    const shardFile = path.join(sharded.outDir, 'runs.shard-1-of-2.jsonl')
    const blob = (index: number) => ['--reporter=blob', `--outputFile=${path.join(blobs, `blob-${index}-2.json`)}`]

    const killed = sharded.vitest(['--shard=1/2', ...blob(1)])
    await waitFor(async () => (await lines(shardFile)).length >= 2, 'two records in the shard file', 60_000)
    process.kill(killed.pid!, 'SIGKILL')
    await killed
    const kept = await lines(shardFile)
    expect(kept.length).toBeGreaterThanOrEqual(2)
    expect(kept.length).toBeLessThan(8)
    expect(await sharded.runsText()).toBe('')

    const rerun = await sharded.vitest(['--shard=1/2', ...blob(1)])
    expect(rerun.exitCode, rerun.all).toBe(0)
    expect(rerun.all).toContain(`this invocation: ${8 - kept.length} run(s) recorded, ${kept.length} already recorded`)
    expect((await lines(shardFile)).slice(0, kept.length)).toEqual(kept)
    expect(await lines(shardFile)).toHaveLength(8)

    const second = await sharded.vitest(['--shard=2/2', ...blob(2)])
    expect(second.exitCode, second.all).toBe(0)
    expect(await parsed(path.join(sharded.outDir, 'runs.shard-2-of-2.jsonl'))).toHaveLength(8)

    const merged = await sharded.vitest(['--merge-reports', blobs])
    expect(merged.exitCode, merged.all).toBe(0)
    const runs = (await sharded.runs()).map(measured).sort(byOrder)
    expect(runs).toHaveLength(16)
    expect(runs).toEqual((await unsharded.runs()).map(measured).sort(byOrder))

    const again = await sharded.vitest(['--merge-reports', blobs])
    expect(again.exitCode, again.all).toBe(0)
    expect(await sharded.runs()).toHaveLength(16)
  })
})
