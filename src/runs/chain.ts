import { sha256 } from '../shared/sha256.ts'

/**
 * The hash chain of `runs.jsonl`: every line carries `prevSha256`, the SHA-256
 * of the previous line's UTF-8 bytes (without its newline), or of the empty
 * string on line 1. Changing, removing or inserting any line breaks the link
 * of the line after it, so the next read finds it.
 */

/** SHA-256 of a line's UTF-8 bytes (its newline excluded), lowercase hex. */
export function lineSha256(line: string | Uint8Array): string {
  return sha256(line)
}

/** The `prevSha256` of line 1: the SHA-256 of the empty string. */
export const GENESIS_SHA256 = lineSha256('')

/** Where a runs file's chain ends: what the next line must link to. */
export interface ChainHead {
  /** Records in the file. */
  readonly lines: number
  /** SHA-256 of the last line (`GENESIS_SHA256` when the file is empty). */
  readonly sha256: string
  /** Bytes up to and including the last newline. */
  readonly bytes: number
}

/** The head of an empty (or missing) runs file. */
export const EMPTY_HEAD: ChainHead = { lines: 0, sha256: GENESIS_SHA256, bytes: 0 }
