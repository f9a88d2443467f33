import { createHash } from 'node:crypto'

/** SHA-256 of a string (its UTF-8 bytes) or of bytes, lowercase hex: the one hash of specs, records, transcripts and files. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}
