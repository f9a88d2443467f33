import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { HarnessFailureReason } from '../errors.ts'

/**
 * A harness failure no retry can help (no credentials, a rejected key, a flag
 * the CLI refuses) will fail every other run of the experiment the same way.
 * The first case that meets one leaves a stop note in the invocation's
 * session folder; every case of the experiment that has not started yet, in
 * any worker, reads it and is skipped instead of failing in turn. The
 * reporter prints the reason once.
 */

/**
 * The failures that stop an experiment: they are about the agent's setup, not about one task, or (`tampered`) a task
 * folder or template no longer holds what the spec hash locked, so no later run of the experiment would measure it.
 */
export const STOPPING_REASONS: ReadonlySet<HarnessFailureReason> = new Set(['auth', 'refused', 'tampered', 'unmetered'])

/** What the stop note says. */
export interface StopNote {
  readonly reason: string
  readonly message: string
  /** The case that met the failure. */
  readonly run: string
}

function noteFile(sessionDir: string, experiment: string): string {
  return path.join(sessionDir, `stop-${experiment}.json`)
}

/** Leaves the stop note (the first one stays). */
export function writeStopNote(sessionDir: string, experiment: string, note: StopNote): void {
  try {
    writeFileSync(noteFile(sessionDir, experiment), JSON.stringify(note), { flag: 'wx' })
  } catch {
    // Another case stopped the experiment first.
  }
}

/** The stop note of an experiment in this invocation, if any. */
export function readStopNote(sessionDir: string, experiment: string): StopNote | undefined {
  const file = noteFile(sessionDir, experiment)
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StopNote
  } catch {
    return undefined
  }
}
