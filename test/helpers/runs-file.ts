import { writeFile } from 'node:fs/promises'
import { anchorOf, writeAnchor } from '../../src/runs/anchor.ts'
import { transcriptPath } from '../../src/runs/artifacts.ts'
import type { RunRecord } from '../../src/runs/record.ts'
import { formatRuns } from '../../src/runs/store.ts'
import { lineSha256 } from '../../src/runs/chain.ts'

/**
 * Writes a whole runs file as the recorder would have left it after appending
 * these records in this order: the chained lines and the anchor beside them.
 * Tests use it to set up recorded runs, including ones a real run could not make.
 */
export async function writeRecordedRuns(file: string, records: readonly object[]): Promise<void> {
  const text = formatRuns(records)
  await writeFile(file, text)
  const lines = text.split('\n').slice(0, -1)
  writeAnchor(file, anchorOf({ lines: lines.length, sha256: lines.length === 0 ? lineSha256('') : lineSha256(lines.at(-1)!), bytes: Buffer.byteLength(text) }))
}

/** A complete, valid record to vary. */
export function sampleRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  const identity = { task: overrides.task ?? '001-a', arm: overrides.arm ?? 'baseline', seed: overrides.seed ?? 1 }
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
    metered: null,
    turns: 3,
    toolCalls: 4,
    toolCallsBeforeFirstEdit: 2,
    wallMs: 1200,
    changedFiles: ['src/a.js'],
    goldFileTouched: true,
    oracle: { failToPass: { passed: 1, total: 1 }, passToPass: { passed: 2, total: 2 }, failing: [] },
    manipulation: null,
    versions: {
      harness: '0.1.0',
      agent: '2.1.197 (Claude Code)',
      model: 'claude-sonnet-4-5',
      tool: null,
      node: 'v20.20.2',
      sandbox: 'bubblewrap 0.8.0',
      toolchain: 'node v20.20.2 /usr/bin/node; bash 5.2.15 /usr/bin/bash',
    },
    sandbox: { denied: { read: null, write: null, network: 0 }, examples: [], egress: [] },
    transcript: transcriptPath(identity),
    transcriptSha256: 'b'.repeat(64),
    harnessRetries: [],
    integrityFlags: [],
    startedAt: '2026-11-30T10:00:00.000Z',
    finishedAt: '2026-11-30T10:00:01.200Z',
    ...overrides,
  }
}
