import { existsSync } from 'node:fs'
import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { DataError } from '../../src/errors.ts'
import type { PlannedRun } from '../../src/runs/plan.ts'
import { prepareExperiment, type PreparedExperiment } from '../../src/runs/prepare.ts'
import type { RunRecord } from '../../src/runs/record.ts'
import { Recorder, readRecorded } from '../../src/runs/recorder.ts'
import { shardFilePath } from '../../src/runs/shards.ts'
import { readSpecFile } from '../../src/runs/spec-file.ts'
import { appendRun, readRuns, runsFilePath } from '../../src/runs/store.ts'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'
import { sampleRecord, writeRecordedRuns } from '../helpers/runs-file.ts'

let prepared: PreparedExperiment
let outDir: string
const warnings: string[] = []
const warn = (line: string) => void warnings.push(line)

beforeEach(async () => {
  const fixture = await createExperimentFixture(simpleTasks(1))
  prepared = await prepareExperiment({ file: fixture.experimentFile, exportName: 'default', root: fixture.root })
  outDir = fixture.outDir
  await mkdir(outDir, { recursive: true })
  warnings.length = 0
})

/** The measured record of a planned run, as a case hands it to the recorder. */
function recordOf(run: PlannedRun, overrides: Partial<RunRecord> = {}): RunRecord {
  const { task, arm, seed, order } = run
  return sampleRecord({ experiment: 'fixture', specSha256: prepared.specSha256, task, arm, seed, order, transcript: null, transcriptSha256: null, ...overrides })
}

const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '')

describe('the recorder', () => {
  test('appends each run once, and the end read finds the file as it left it', async () => {
    const recorder = new Recorder(readRecorded(prepared, { warn }), warn)
    const [first, second] = prepared.plan
    expect(recorder.record(recordOf(first!))).toEqual({ kind: 'recorded' })
    expect(recorder.record(recordOf(first!))).toEqual({ kind: 'already recorded' })
    expect(recorder.record(recordOf(second!))).toEqual({ kind: 'recorded' })
    expect(recorder.appended).toBe(2)
    expect(await lines(runsFilePath(outDir))).toHaveLength(2)
    expect(recorder.finish().records.map((record) => record.order)).toEqual([first!.order, second!.order])
  })

  test('starts from what is recorded: a run already in the file is not appended again', async () => {
    await writeRecordedRuns(runsFilePath(outDir), [recordOf(prepared.plan[0]!)])
    const recorder = new Recorder(readRecorded(prepared, { warn }), warn)
    expect(recorder.recorded.size).toBe(1)
    expect(recorder.record(recordOf(prepared.plan[0]!))).toEqual({ kind: 'already recorded' })
    expect(await lines(runsFilePath(outDir))).toHaveLength(1)
  })

  test('a run it cannot append (the file changed under it) is kept in unrecorded/, and so is every later one; the end read refuses', async () => {
    const recorder = new Recorder(readRecorded(prepared, { warn }), warn)
    recorder.record(recordOf(prepared.plan[0]!))
    appendRun(runsFilePath(outDir), recordOf(prepared.plan[1]!), { warn })
    const refused = recorder.record(recordOf(prepared.plan[2]!))
    expect(refused.kind).toBe('unrecorded')
    if (refused.kind !== 'unrecorded') return
    expect(refused.error).toBeInstanceOf(DataError)
    expect(refused.error.message).toMatch(/changed by something other than the recorder/)
    expect(path.dirname(refused.keptIn)).toBe(path.join(outDir, 'unrecorded'))
    expect(JSON.parse(await readFile(refused.keptIn, 'utf8'))).toEqual(recordOf(prepared.plan[2]!))
    expect(recorder.record(recordOf(prepared.plan[3]!)).kind).toBe('unrecorded')
    expect(await readdir(path.join(outDir, 'unrecorded'))).toHaveLength(2)
    expect(() => recorder.finish()).toThrow(/changed by something other than the recorder/)
  })

  test('folds the shard files into runs.jsonl in plan order, each run once, naming a run measured twice differently', async () => {
    const [a, b, c] = prepared.plan
    await writeRecordedRuns(runsFilePath(outDir), [recordOf(a!)])
    await writeRecordedRuns(shardFilePath(outDir, { index: 1, count: 2 }), [recordOf(c!), recordOf(a!)])
    await writeRecordedRuns(shardFilePath(outDir, { index: 2, count: 2 }), [recordOf(b!), recordOf(c!, { costUsd: 0.07 })])
    const recorder = new Recorder(readRecorded(prepared, { warn }), warn)
    const { appended, conflicts } = recorder.fold()
    expect(appended).toBe(2)
    expect(conflicts).toEqual([`${c!.task} › ${c!.arm} › seed ${c!.seed}`])
    expect(recorder.finish().records.map((record) => [record.order, record.costUsd])).toEqual([
      [a!.order, 0.05],
      [b!.order, 0.05],
      [c!.order, 0.05],
    ])
    expect(new Recorder(readRecorded(prepared, { warn }), warn).fold().appended).toBe(0)
  })

  test('a torn last line is set aside by the start read, and the next run is appended after the last whole line', async () => {
    const file = runsFilePath(outDir)
    await writeRecordedRuns(file, [recordOf(prepared.plan[0]!)])
    await appendFile(file, '{"experiment":"fixture","task":"00')
    const recorder = new Recorder(readRecorded(prepared, { warn }), warn)
    expect(warnings.join('\n')).toMatch(/runs\.jsonl:2: the last line has no newline .*moved it to runs\.jsonl\.torn-/)
    expect((await readdir(outDir)).filter((name) => name.startsWith('runs.jsonl.torn-'))).toHaveLength(1)
    expect(recorder.record(recordOf(prepared.plan[1]!))).toEqual({ kind: 'recorded' })
    expect(recorder.finish().records).toHaveLength(2)
  })

  test('keeps spec.json with the plan, and writes none when the records belong to another experiment', async () => {
    new Recorder(readRecorded(prepared, { warn }), warn).writeSpec()
    expect(readSpecFile(outDir)?.plan).toEqual(prepared.plan.map(({ task, arm, seed, order }) => ({ task, arm, seed, order })))
    const other = await createExperimentFixture(simpleTasks(1))
    await mkdir(other.outDir, { recursive: true })
    const elsewhere = await prepareExperiment({ file: other.experimentFile, exportName: 'default', root: other.root })
    await writeRecordedRuns(runsFilePath(other.outDir), [recordOf(prepared.plan[0]!, { experiment: 'another' })])
    const start = readRecorded(elsewhere, { warn })
    expect(start.refusal?.message).toMatch(/holds runs of experiment "another"/)
    new Recorder(start, warn).writeSpec()
    expect(existsSync(path.join(other.outDir, 'spec.json'))).toBe(false)
    expect(readRuns(runsFilePath(other.outDir)).records).toHaveLength(1)
  })
})
