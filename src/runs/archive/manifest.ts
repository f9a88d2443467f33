import { z } from 'zod'

/**
 * The manifest at the head of a transcript archive (`manifest.json`): which
 * runs.jsonl it was made from and, for every recorded run that names a
 * transcript, the archived file, its SHA-256 and size, in runs.jsonl order.
 */
export const ArchiveManifestSchema = z.strictObject({
  format: z.literal('task-outcome transcript archive 1'),
  experiment: z.string(),
  /** SHA-256 of the runs.jsonl bytes the archive was made from. */
  runsSha256: z.string(),
  transcripts: z.array(
    z.strictObject({
      /** The file's path inside the archive: `transcripts/<the record's transcript path>`. */
      path: z.string(),
      sha256: z.string(),
      bytes: z.number().int().nonnegative(),
      specSha256: z.string(),
      task: z.string(),
      arm: z.string(),
      seed: z.number().int().positive(),
    }),
  ),
})
export type ArchiveManifest = z.infer<typeof ArchiveManifestSchema>

/** The manifest's path inside the archive (its first entry). */
export const MANIFEST_PATH = 'manifest.json'

/** Where a record's transcript goes inside the archive. */
export function archivePath(transcript: string): string {
  return `transcripts/${transcript.split('\\').join('/')}`
}
