import { existsSync, readFileSync } from 'node:fs'
import { z } from 'zod'
import { DataError, describeSchemaIssues } from '../errors.ts'
import { writeFileAtomic } from '../shared/atomic-write.ts'
import type { ChainHead } from './chain.ts'

/**
 * The anchor of a runs file: `<runs file>.head`, where the recorder keeps the
 * chain's head after every append. The chain finds any change before the last
 * line; the anchor finds a change to the last line, a line removed from the
 * end, and a well-linked line appended by anything but the recorder (a forged
 * record of a run not yet made, which would otherwise be skipped as done).
 *
 * An append is two-phase, so a crash at any point reads as a crash, never as
 * tampering: the anchor first names the line about to be written (`pending`),
 * then the line is appended and fsynced, then the anchor moves to it.
 */

const sha256 = z.string().regex(/^[0-9a-f]{64}$/)

/** What `<runs file>.head` holds. */
export const AnchorSchema = z.strictObject({
  lines: z.number().int().nonnegative(),
  sha256,
  bytes: z.number().int().nonnegative(),
  /** SHA-256 of the line being appended, between the two phases of an append; null otherwise. */
  pending: sha256.nullable(),
})
export type Anchor = z.infer<typeof AnchorSchema>

/** The anchor file of a runs file. */
export function anchorPath(runsFile: string): string {
  return `${runsFile}.head`
}

/** Reads a runs file's anchor; undefined when there is none (a file written by hand, or copied without it). */
export function readAnchor(runsFile: string): Anchor | undefined {
  const file = anchorPath(runsFile)
  if (!existsSync(file)) return undefined
  let value: unknown
  try {
    value = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new DataError(
      `${file}: not valid JSON (${(error as Error).message}): the recorder writes it whole, so it was edited. Restore it from a copy, together with its runs.jsonl.`,
    )
  }
  const parsed = AnchorSchema.safeParse(value)
  if (!parsed.success) throw new DataError(`${file}: not an anchor of a runs file (${describeSchemaIssues(parsed.error.issues)})`)
  return parsed.data
}

/** Writes the anchor atomically (a temporary file, fsynced, renamed over it). */
export function writeAnchor(runsFile: string, anchor: Anchor): void {
  writeFileAtomic(anchorPath(runsFile), `${JSON.stringify(anchor)}\n`)
}

/** The anchor of a head the recorder has written completely. */
export function anchorOf(head: ChainHead): Anchor {
  return { lines: head.lines, sha256: head.sha256, bytes: head.bytes, pending: null }
}

/**
 * Checks a verified chain's head against the file's anchor. Returns whether
 * the anchor lags one completed append behind (a crash between the append and
 * the anchor's move: the writer moves it). A line appended by anything else,
 * a last line changed, or lines removed from the end is a `DataError` naming
 * the line.
 */
export function checkAnchor(runsFile: string, head: ChainHead, anchor: Anchor, restore: string): { lagging: boolean } {
  if (head.lines === anchor.lines && head.sha256 === anchor.sha256) return { lagging: false }
  if (anchor.pending !== null && head.lines === anchor.lines + 1 && head.sha256 === anchor.pending) return { lagging: true }
  const at = anchorPath(runsFile)
  if (head.lines > anchor.lines) {
    throw new DataError(
      `${runsFile}:${anchor.lines + 1}: not written by the recorder: its last append was line ${anchor.lines} (${at}), and ${head.lines - anchor.lines} line(s) follow it ` +
        `(a record added by hand, or forged: a run recorded this way would never be made). ${restore}`,
    )
  }
  if (head.lines < anchor.lines) {
    throw new DataError(
      `${runsFile}:${head.lines + 1}: line(s) ${head.lines + 1}–${anchor.lines} were removed from the end: the recorder wrote ${anchor.lines} line(s) (${at}). ${restore}`,
    )
  }
  throw new DataError(`${runsFile}:${head.lines}: the last line was changed after the recorder wrote it (${at} holds its SHA-256 ${anchor.sha256.slice(0, 12)}…). ${restore}`)
}
