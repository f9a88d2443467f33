import { existsSync, readFileSync } from 'node:fs'
import { DataError } from '../../errors.ts'
import { writeFileAtomic } from '../../shared/atomic-write.ts'
import type { ClaimEntry } from './claim.ts'

/** `claims.json`: every published result, one entry per (experiment, spec hash), in the order first published. */
export interface ClaimsFile {
  readonly claims: readonly ClaimEntry[]
}

/** Reads a claims file; a missing file holds no claims; anything else malformed is a `DataError` naming it. */
export function readClaims(file: string): ClaimsFile {
  if (!existsSync(file)) return { claims: [] }
  let value: unknown
  try {
    value = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new DataError(`${file}: not valid JSON (${(error as Error).message}). Fix it or move it away; publish never overwrites what it cannot read.`)
  }
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { claims?: unknown }).claims)) {
    throw new DataError(`${file}: field claims: expected a list of entries ({"claims": [...]})`)
  }
  return value as ClaimsFile
}

/** Adds the entry, or replaces the one with the same experiment and spec hash in place; says which. */
export function upsertClaim(claims: ClaimsFile, entry: ClaimEntry): { claims: ClaimsFile; replaced: boolean } {
  const index = claims.claims.findIndex((claim) => claim.experiment === entry.experiment && claim.specSha256 === entry.specSha256)
  if (index === -1) return { claims: { ...claims, claims: [...claims.claims, entry] }, replaced: false }
  const next = [...claims.claims]
  next[index] = entry
  return { claims: { ...claims, claims: next }, replaced: true }
}

/** Writes a claims file whole (a temporary file renamed over it, so a crash leaves the old one). */
export function writeClaims(file: string, claims: ClaimsFile): void {
  writeFileAtomic(file, `${JSON.stringify(claims, null, 2)}\n`)
}
