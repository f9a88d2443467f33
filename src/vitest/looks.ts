import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { writeFileAtomic } from '../shared/atomic-write.ts'

/**
 * A sequential experiment's looks, as the reporter (Vitest's main process,
 * which records every run) tells the workers: after each case of the
 * experiment ends it applies the design to what is recorded and writes this
 * note in the invocation's session folder. A case of a task in block b > 1
 * waits until look b − 1 is decided, and is skipped, never run, when the
 * design stopped before its block (or a look could not be taken because
 * runs of its block ended without a record: a re-run resumes there).
 */
export interface LookNote {
  /** Looks taken that said "continue": blocks up to decided + 1 may run. */
  readonly decided: number
  readonly of: number
  /** The look that stopped the experiment, and why. */
  readonly stopped: { readonly look: number; readonly reason: 'efficacy' | 'futility' } | null
  /** A look that cannot be taken in this invocation, and why. */
  readonly blocked: { readonly look: number; readonly reason: string } | null
}

/** How the note of a case the design stopped before starts (the reporter counts these). */
export const NOT_RUN_SEQUENTIAL = 'not run: stopped at look'

/** How the note of a case whose preceding look could not be taken starts. */
export const NOT_RUN_LOOK_PENDING = 'not run: look'

function noteFile(sessionDir: string, experiment: string): string {
  return path.join(sessionDir, `looks-${experiment}.json`)
}

/** Writes the note whole (a rename), so a reader never sees half of it. */
export function writeLookNote(sessionDir: string, experiment: string, note: LookNote): void {
  writeFileAtomic(noteFile(sessionDir, experiment), JSON.stringify(note))
}

/** The note, if the reporter has written one. */
export function readLookNote(sessionDir: string, experiment: string): LookNote | undefined {
  const file = noteFile(sessionDir, experiment)
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LookNote
  } catch {
    return undefined
  }
}

/** Whether a task of `block` may run given the note, must be skipped (with the note), or must wait. */
export function blockVerdict(note: LookNote | undefined, block: number): { run: true } | { run: false; note: string } | undefined {
  if (block <= 1) return { run: true }
  if (note === undefined) return undefined
  if (note.stopped !== null && note.stopped.look < block) {
    return {
      run: false,
      note: `${NOT_RUN_SEQUENTIAL} ${note.stopped.look} of ${note.of}: ${note.stopped.reason} (the pre-registered sequential design; never run, never paid for)`,
    }
  }
  if (note.decided >= block - 1) return { run: true }
  if (note.blocked !== null && note.blocked.look < block)
    return { run: false, note: `${NOT_RUN_LOOK_PENDING} ${note.blocked.look} of ${note.of} was not taken: ${note.blocked.reason}` }
  return undefined
}

/** Waits (polling) until the note decides this block; gives up with an error when the signal aborts. */
export async function awaitBlock(sessionDir: string, experiment: string, block: number, signal: AbortSignal | undefined): Promise<{ run: true } | { run: false; note: string }> {
  for (;;) {
    const verdict = blockVerdict(readLookNote(sessionDir, experiment), block)
    if (verdict !== undefined) return verdict
    if (signal?.aborted === true) throw new Error(`waited for look ${block - 1} of experiment ${experiment} until the case was stopped`)
    await sleep(200)
  }
}
