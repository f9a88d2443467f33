import { list, type ReadEntry } from 'tar'
import { DataError, describeSchemaIssues } from '../../errors.ts'
import type { RecordedRun } from '../record.ts'
import { archivePath, ArchiveManifestSchema, MANIFEST_PATH, type ArchiveManifest } from './manifest.ts'
import { runLabel } from '../../shared/run-label.ts'
import { sha256 } from '../../shared/sha256.ts'

/** One way an archive differs from the runs file it is checked against. */
export interface ArchiveProblem {
  readonly kind: 'mismatch' | 'missing' | 'extra' | 'manifest'
  /** The archive path the problem is about. */
  readonly path: string
  readonly message: string
}

/** What verifying an archive found. */
export interface ArchiveVerification {
  /** Transcripts checked against runs.jsonl (present, same SHA-256). */
  readonly checked: number
  /** Every problem, in runs.jsonl order, then the extra files in archive order; the first is the one to name. */
  readonly problems: readonly ArchiveProblem[]
  readonly manifest: ArchiveManifest | null
}

/** Reads every file entry of a .tar.gz into memory: path → bytes (a path twice is a problem of its own). */
async function readEntries(file: string): Promise<{ files: Map<string, Buffer>; order: string[]; duplicates: string[]; others: string[] }> {
  const files = new Map<string, Buffer>()
  const order: string[] = []
  const duplicates: string[] = []
  const others: string[] = []
  const pending: Promise<void>[] = []
  try {
    await list({
      file,
      onReadEntry: (entry: ReadEntry) => {
        if (entry.type !== 'File' && entry.type !== 'OldFile') {
          others.push(`${entry.path} (${entry.type})`)
          entry.resume()
          return
        }
        const chunks: Buffer[] = []
        entry.on('data', (chunk: Buffer) => chunks.push(chunk))
        pending.push(
          new Promise((resolve) =>
            entry.on('end', () => {
              if (files.has(entry.path)) duplicates.push(entry.path)
              else order.push(entry.path)
              files.set(entry.path, Buffer.concat(chunks))
              resolve()
            }),
          ),
        )
      },
      strict: true,
    })
  } catch (error) {
    throw new DataError(`${file}: not a readable .tar.gz (${(error as Error).message})`)
  }
  await Promise.all(pending)
  return { files, order, duplicates, others }
}

/**
 * Checks a transcript archive against runs.jsonl: every recorded run that
 * names a transcript must have it in the archive, under
 * `transcripts/<its path>`, hashing to the SHA-256 the record holds; the
 * manifest must agree; nothing else may be in the archive.
 */
export async function verifyTranscriptArchive(archiveFile: string, records: readonly RecordedRun[]): Promise<ArchiveVerification> {
  const { files, order, duplicates, others } = await readEntries(archiveFile)
  const problems: ArchiveProblem[] = []
  let manifest: ArchiveManifest | null = null
  const manifestBytes = files.get(MANIFEST_PATH)
  if (manifestBytes === undefined) {
    problems.push({ kind: 'manifest', path: MANIFEST_PATH, message: `missing: ${MANIFEST_PATH} (the archive's list of SHA-256s) is not in the archive` })
  } else {
    try {
      const parsed = ArchiveManifestSchema.safeParse(JSON.parse(manifestBytes.toString('utf8')))
      if (parsed.success) manifest = parsed.data
      else
        problems.push({
          kind: 'manifest',
          path: MANIFEST_PATH,
          message: `${MANIFEST_PATH}: ${describeSchemaIssues(parsed.error.issues)}`,
        })
    } catch (error) {
      problems.push({ kind: 'manifest', path: MANIFEST_PATH, message: `${MANIFEST_PATH}: not valid JSON (${(error as Error).message})` })
    }
  }
  const listed = new Map((manifest?.transcripts ?? []).map((entry) => [entry.path, entry]))
  const expected = new Set<string>([MANIFEST_PATH])
  let checked = 0
  for (const record of records) {
    if (record.transcript === undefined || record.transcript === null) continue
    const entry = archivePath(record.transcript)
    expected.add(entry)
    const bytes = files.get(entry)
    if (bytes === undefined) {
      problems.push({ kind: 'missing', path: entry, message: `missing: ${entry} (the transcript of ${runLabel(record)}) is not in the archive` })
      continue
    }
    const actual = sha256(bytes)
    if (actual !== record.transcriptSha256) {
      problems.push({
        kind: 'mismatch',
        path: entry,
        message: `mismatch: ${entry} (the transcript of ${runLabel(record)}) hashes to ${actual}, but runs.jsonl records ${String(record.transcriptSha256)}`,
      })
      continue
    }
    const inManifest = listed.get(entry)
    if (manifest !== null && (inManifest === undefined || inManifest.sha256 !== actual)) {
      problems.push({ kind: 'manifest', path: entry, message: `${MANIFEST_PATH} ${inManifest === undefined ? 'does not list' : 'lists another SHA-256 for'} ${entry}` })
      continue
    }
    checked++
  }
  for (const entry of order) {
    if (!expected.has(entry)) problems.push({ kind: 'extra', path: entry, message: `extra file: ${entry} is in the archive but no recorded run names it` })
  }
  for (const entry of duplicates) problems.push({ kind: 'extra', path: entry, message: `extra file: ${entry} is in the archive twice` })
  for (const entry of others) problems.push({ kind: 'extra', path: entry, message: `extra entry: ${entry} is not a file` })
  for (const entry of listed.keys()) {
    if (!expected.has(entry)) problems.push({ kind: 'manifest', path: entry, message: `${MANIFEST_PATH} lists ${entry}, which no recorded run names` })
  }
  return { checked, problems, manifest }
}
