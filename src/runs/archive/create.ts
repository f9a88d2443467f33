import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { create } from 'tar'
import { DataError } from '../../errors.ts'
import type { RecordedRun } from '../record.ts'
import { transcriptFile } from '../transcripts.ts'
import { archivePath, MANIFEST_PATH, type ArchiveManifest } from './manifest.ts'
import { runLabel } from '../../shared/run-label.ts'
import { sha256 } from '../../shared/sha256.ts'

/** What `createTranscriptArchive` needs: the output folder, its runs file's bytes and records, and where the archive goes. */
export interface ArchiveInput {
  readonly experiment: string
  readonly outDir: string
  /** The exact bytes of runs.jsonl (their SHA-256 goes into the manifest). */
  readonly runsBytes: Uint8Array
  readonly records: readonly RecordedRun[]
  readonly archiveFile: string
}

/** The archive written: its SHA-256 and how many transcripts it holds. */
export interface ArchiveResult {
  readonly file: string
  readonly sha256: string
  readonly transcripts: number
}

/** Every tar entry gets this mtime (the epoch): the same records make the same bytes, whenever they are packed. */
const FIXED_MTIME = new Date(0)

/**
 * Packs every recorded run's transcript with a manifest of SHA-256s into a
 * `.tar.gz` (the `tar` package), reproducible byte for byte for the same
 * records: entries in runs.jsonl order after `manifest.json`, files only (no
 * directory entries), mode 0644, mtime the epoch, `portable` (no uid, gid,
 * user or group names, atime or ctime) and a gzip header without a timestamp
 * or OS. Each transcript is checked against its record while it is copied; a
 * mismatch is a `DataError` and no archive is written.
 */
export async function createTranscriptArchive(input: ArchiveInput): Promise<ArchiveResult> {
  const staging = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-archive-'))
  try {
    const manifest: ArchiveManifest = {
      format: 'task-outcome transcript archive 1',
      experiment: input.experiment,
      runsSha256: sha256(input.runsBytes),
      transcripts: [],
    }
    const entries: string[] = []
    for (const record of input.records) {
      if (record.transcript === undefined || record.transcript === null) continue
      const source = transcriptFile(input.outDir, record.transcript)
      if (source === null) throw new DataError(`${runLabel(record)}: its transcript path ${record.transcript} leaves the output folder`)
      const bytes = await readFile(source)
      if (sha256(bytes) !== record.transcriptSha256) {
        throw new DataError(`${runLabel(record)}: its transcript ${record.transcript} no longer matches the SHA-256 in runs.jsonl`)
      }
      const entry = archivePath(record.transcript)
      if (entries.includes(entry)) throw new DataError(`two recorded runs name the same transcript ${record.transcript}`)
      const target = path.join(staging, entry)
      await mkdir(path.dirname(target), { recursive: true })
      await writeFile(target, bytes)
      await chmod(target, 0o644)
      entries.push(entry)
      manifest.transcripts.push({ path: entry, sha256: sha256(bytes), bytes: bytes.length, specSha256: record.specSha256, task: record.task, arm: record.arm, seed: record.seed })
    }
    await writeFile(path.join(staging, MANIFEST_PATH), `${JSON.stringify(manifest, null, 2)}\n`)
    await chmod(path.join(staging, MANIFEST_PATH), 0o644)
    await mkdir(path.dirname(input.archiveFile), { recursive: true })
    const partial = `${input.archiveFile}.${process.pid}.partial`
    await create({ file: partial, cwd: staging, gzip: { level: 9 }, portable: true, mtime: FIXED_MTIME, noDirRecurse: true }, [MANIFEST_PATH, ...entries])
    await rename(partial, input.archiveFile)
    return { file: input.archiveFile, sha256: sha256(await readFile(input.archiveFile)), transcripts: entries.length }
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}
