import { SpecError } from '../errors.ts'
import { canonicalJson } from './hash.ts'
import type { ChangeLogEntry } from './schema.ts'

/** What the change-log check compares: the log spec.json recorded, the experiment's log now, and the recorded runs. */
export interface ChangeLogCheck {
  /** The experiment's name, for messages. */
  readonly experiment: string
  /** Where the change log is written (the experiment file, relative), for messages. */
  readonly file: string
  /** Where the recorded log is kept (spec.json, relative), for messages. */
  readonly recordedIn: string
  /** The log spec.json recorded (every entry it has seen, in order). */
  readonly recorded: readonly ChangeLogEntry[]
  /** The experiment's log now. */
  readonly current: readonly ChangeLogEntry[]
  /** How many runs are recorded (under any spec hash). */
  readonly recordedRuns: number
  /** The UTC day (`YYYY-MM-DD`) the last recorded run finished, or null when none is recorded. */
  readonly lastRunDate: string | null
  /** What changed in the spec since spec.json recorded it, one line each; null when the spec hash is the same. */
  readonly specChanges: readonly string[] | null
  /** The earlier spec hash (shortened in messages) and the current one. */
  readonly hashes: { readonly recorded: string; readonly current: string }
}

function describeEntry(entry: ChangeLogEntry): string {
  return `${entry.date} — ${entry.change} (reason: ${entry.reason})`
}

/** The entries of `current` that `recorded` has not seen (every recorded entry must be first, unchanged, in order). */
export function newEntries(recorded: readonly ChangeLogEntry[], current: readonly ChangeLogEntry[]): readonly ChangeLogEntry[] {
  return current.slice(recorded.length)
}

/**
 * The change log's rule, checked before any run once a run is recorded:
 * - an entry spec.json recorded is never edited or deleted (the log only grows);
 * - a new entry is dated on or after the day the last recorded run finished;
 * - a changed spec (a new spec hash) needs at least one new entry.
 * Before the first recorded run the spec and its log may change freely.
 * Throws a `SpecError` naming the entry or the change, and what to write.
 */
export function checkChangeLog(check: ChangeLogCheck): void {
  if (check.recordedRuns === 0) return
  const { recorded, current } = check
  for (let index = 0; index < recorded.length; index++) {
    const was = recorded[index]!
    const now = current[index]
    if (now !== undefined && canonicalJson(now) === canonicalJson(was)) continue
    throw new SpecError(
      `${check.file}: change log entry ${index + 1} (${describeEntry(was)}) was ${now === undefined ? 'deleted' : `edited (now: ${describeEntry(now)})`}. ` +
        `${check.recordedIn} keeps every entry it has seen, and an entry made under recorded runs is never rewritten: ` +
        'restore it and add a new, dated entry that says what is corrected and why.',
    )
  }
  const added = newEntries(recorded, current)
  if (check.lastRunDate !== null) {
    const early = added.find((entry) => entry.date < check.lastRunDate!)
    if (early !== undefined) {
      throw new SpecError(
        `${check.file}: the new change log entry "${describeEntry(early)}" is dated before the last recorded run (${check.lastRunDate}). ` +
          `A change made now is dated now: give it a date on or after ${check.lastRunDate}.`,
      )
    }
  }
  if (check.specChanges === null || added.length > 0) return
  const today = new Date().toISOString().slice(0, 10)
  const date = check.lastRunDate !== null && check.lastRunDate > today ? check.lastRunDate : today
  const first = check.specChanges[0] ?? 'what changed'
  throw new SpecError(
    `the spec of experiment "${check.experiment}" changed since its ${check.recordedRuns} recorded run(s) ` +
      `(recorded under ${check.hashes.recorded.slice(0, 12)}, now ${check.hashes.current.slice(0, 12)}). What changed:\n` +
      check.specChanges.map((change) => `  - ${change}`).join('\n') +
      `\nA pre-registered experiment changes under recorded runs only with a record of why. Either restore the spec to resume, ` +
      `or add an entry to the change log in ${check.file}, dated on or after the last recorded run${check.lastRunDate === null ? '' : ` (${check.lastRunDate})`}:\n` +
      `  preregistration: { changes: [ …, { date: '${date}', change: ${JSON.stringify(first)}, reason: '…' } ] }\n` +
      "The runs recorded under the earlier spec are kept and never pooled with the new ones: the analysis uses the current spec's runs only.",
  )
}
