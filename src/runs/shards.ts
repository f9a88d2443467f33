import { readdirSync } from 'node:fs'
import path from 'node:path'
import { runKey, runLabel } from '../shared/run-label.ts'
import type { RecordedRun, RunRecord } from './record.ts'
import { readRuns, runsFilePath, type ReadRunsOptions, type RunsFile } from './store.ts'

/**
 * Shard files: a shard (`vitest run --shard=i/n`) appends each run to a runs
 * file of its own in the output folder (`runs.shard-<i>-of-<n>.jsonl`) the
 * moment its case ends, so an interrupted shard loses nothing and a rerun of
 * the same shard resumes from it. Every reader of "what is recorded" reads
 * runs.jsonl and every shard file; folding appends the shard files' runs to
 * runs.jsonl (each once, through the store, so the chain stays valid) and
 * leaves the shard files as they are.
 */

/** Which shard of how many (Vitest's `--shard=index/count`). */
export interface ShardId {
  readonly index: number
  readonly count: number
}

/** A run's identity within its spec: after a logged change of the spec the same (task, arm, seed) is measured again under the new hash. */
export function specRunKey(run: { specSha256: string; task: string; arm: string; seed: number }): string {
  return `${run.specSha256}\u0000${runKey(run)}`
}

const SHARD_FILE = /^runs\.shard-(\d+)-of-(\d+)\.jsonl$/

/** The runs file of one shard in an output folder. */
export function shardFilePath(outDir: string, shard: ShardId): string {
  return path.join(outDir, `runs.shard-${shard.index}-of-${shard.count}.jsonl`)
}

/** Every shard file in an output folder, by shard count then index. */
export function listShardFiles(outDir: string): string[] {
  let entries: string[]
  try {
    entries = readdirSync(outDir)
  } catch {
    return []
  }
  return entries
    .flatMap((entry) => {
      const match = SHARD_FILE.exec(entry)
      return match === null ? [] : [{ entry, count: Number(match[2]), index: Number(match[1]) }]
    })
    .sort((a, b) => a.count - b.count || a.index - b.index)
    .map(({ entry }) => path.join(outDir, entry))
}

/** What is recorded for an output folder, across runs.jsonl and the shard files. */
export interface RecordedRuns {
  /** Each (spec, task, arm, seed) once: runs.jsonl's record first, then the first shard file's. */
  readonly records: readonly RecordedRun[]
  /** Keys found in more than one file with different measurements (run twice: the first is kept). */
  readonly conflicts: readonly string[]
  /** Each file read (runs.jsonl first, even when absent) with its own records and head, for checks that name a file's lines. */
  readonly files: readonly RunsFile[]
}

/** The fields that say what a run measured (a copy of a record in another file differs only in its chain link). */
export function measured(record: RecordedRun): string {
  const { prevSha256: _chain, ...rest } = record as RecordedRun & { prevSha256?: unknown }
  return JSON.stringify(rest)
}

/**
 * Reads runs.jsonl and every shard file of an output folder; each run once.
 * `writer` reads the file the caller is about to append to as its writer
 * does (a torn tail set aside, see `ReadRunsOptions.setAsideTorn`).
 */
export function readRecordedRuns(outDir: string, writer?: { readonly file: string; readonly warn: ReadRunsOptions['warn'] }): RecordedRuns {
  const byKey = new Map<string, RecordedRun>()
  const conflicts: string[] = []
  const files: RunsFile[] = []
  for (const file of [runsFilePath(outDir), ...listShardFiles(outDir)]) {
    const read = readRuns(file, file === writer?.file ? { setAsideTorn: true, ...(writer.warn === undefined ? {} : { warn: writer.warn }) } : {})
    files.push(read)
    for (const record of read.records) {
      const key = specRunKey(record)
      const earlier = byKey.get(key)
      if (earlier === undefined) byKey.set(key, record)
      else if (measured(earlier) !== measured(record)) conflicts.push(`${runLabel(record)}`)
    }
  }
  return { records: [...byKey.values()], conflicts, files }
}

/** A record as the store takes it: the chain link belongs to the file it was read from. */
export function withoutChainLink(record: RecordedRun): RunRecord {
  const { prevSha256: _chain, ...rest } = record as RecordedRun & { prevSha256?: unknown }
  return rest as unknown as RunRecord
}
