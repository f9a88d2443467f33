import { createHash, hash, type Hash } from 'node:crypto'

/**
 * SHA-256 of a string (its UTF-8 bytes) or of bytes, lowercase hex: the one hash of specs, records, transcripts and files.
 * One-shot (`crypto.hash`): no `Hash` object per call, a third of the cost on short inputs (every line of runs.jsonl is hashed on every read).
 */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex')
}

/** An incremental SHA-256 (node:crypto's `Hash`), for what is hashed piece by piece: a stream, a folder walked file by file. */
export function sha256Hasher(): Hash {
  return createHash('sha256')
}
