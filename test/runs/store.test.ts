import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { DataError } from '../../src/errors.ts'
import type { RunRecord } from '../../src/runs/record.ts'
import { appendRun, parseRuns, readRuns } from '../../src/runs/store.ts'

/** A complete, valid record to vary. */
export function sampleRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    experiment: 'demo',
    specSha256: 'a'.repeat(64),
    task: '001-a',
    arm: 'baseline',
    seed: 1,
    order: 0,
    outcome: 'solved',
    solved: true,
    costUsd: 0.05,
    costSource: 'agent',
    tokens: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
    turns: 3,
    toolCalls: 4,
    toolCallsBeforeFirstEdit: 2,
    wallMs: 1200,
    changedFiles: ['src/a.js'],
    goldFileTouched: true,
    oracle: { failToPass: { passed: 1, total: 1 }, passToPass: { passed: 2, total: 2 }, failing: [] },
    manipulation: null,
    versions: { harness: '0.1.0', agent: '2.1.197 (Claude Code)', model: 'claude-sonnet-4-5', tool: null, node: 'v20.20.2', sandbox: 'bubblewrap 0.8.0' },
    sandbox: { denied: { read: null, write: null, network: 0 }, examples: [] },
    transcript: 'artifacts/001-a/baseline/seed-1/transcript.jsonl',
    transcriptSha256: 'b'.repeat(64),
    harnessRetries: [],
    startedAt: '2026-11-30T10:00:00.000Z',
    finishedAt: '2026-11-30T10:00:01.200Z',
    ...overrides,
  }
}

async function tempFile(): Promise<string> {
  return path.join(await mkdtemp(path.join(os.tmpdir(), 'task-outcome-store-')), 'runs.jsonl')
}

describe('runs.jsonl', () => {
  test('appends one line per record and reads them back', async () => {
    const file = await tempFile()
    appendRun(file, sampleRecord())
    appendRun(file, sampleRecord({ seed: 2, order: 1 }))
    const text = await readFile(file, 'utf8')
    expect(text.split('\n')).toHaveLength(3)
    expect(readRuns(file).records.map((r) => r.seed)).toEqual([1, 2])
  })

  test('a missing file holds no runs', async () => {
    expect(readRuns(await tempFile()).records).toEqual([])
  })

  test('refuses to write a record that breaks the schema, naming the field', async () => {
    const file = await tempFile()
    expect(() => appendRun(file, sampleRecord({ costUsd: -1 }))).toThrow(/field costUsd/)
    expect(readRuns(file).records).toEqual([])
  })

  test('a malformed line is an error naming the file, the line and the field', () => {
    const good = JSON.stringify(sampleRecord())
    expect(() => parseRuns(`${good}\n{"task": 1}\n`, 'runs.jsonl')).toThrow(DataError)
    expect(() => parseRuns(`${good}\n${JSON.stringify({ ...sampleRecord({ seed: 2 }), outcome: 'maybe' })}\n`, 'runs.jsonl')).toThrow(
      /runs\.jsonl:2: field outcome/,
    )
    expect(() => parseRuns(`${good}\nnot json\n`, 'runs.jsonl')).toThrow(/runs\.jsonl:2: not valid JSON/)
  })

  test('the same (task, arm, seed) twice is an error naming both lines', () => {
    const good = JSON.stringify(sampleRecord())
    expect(() => parseRuns(`${good}\n\n${good}\n`, 'runs.jsonl')).toThrow(/runs\.jsonl:3: 001-a › baseline › seed 1 is already recorded on line 1/)
  })

  test('readers keep fields they do not know', () => {
    const [record] = parseRuns(`${JSON.stringify({ ...sampleRecord(), extra: 'kept' })}\n`, 'runs.jsonl')
    expect(record).toMatchObject({ extra: 'kept' })
  })

  test('a line cut short by a crash is set aside, not lost, and the next record starts a fresh line', async () => {
    const file = await tempFile()
    appendRun(file, sampleRecord())
    const torn = JSON.stringify(sampleRecord({ seed: 2 })).slice(0, 40)
    await writeFile(file, torn, { flag: 'a' })
    appendRun(file, sampleRecord({ seed: 3, order: 2 }))
    expect(readRuns(file).records.map((r) => r.seed)).toEqual([1, 3])
    const sideFiles = (await readdir(path.dirname(file))).filter((name) => name.startsWith('runs.jsonl.torn-'))
    expect(sideFiles).toHaveLength(1)
    expect(await readFile(path.join(path.dirname(file), sideFiles[0]!), 'utf8')).toBe(torn)
  })
})
