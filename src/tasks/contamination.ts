import type { Task } from './task.ts'

/**
 * Contamination: a model may have seen a fix in its training data when the fix
 * was committed on or before its training cutoff. Such tasks are flagged (in
 * the report and in `validate`), not dropped: the pre-registration decides
 * what to do with them.
 */
export interface ContaminationCheck {
  /** The experiment's `trainingCutoff` (`YYYY-MM-DD`). */
  readonly trainingCutoff: string
  /** Tasks whose fix was committed on or before the cutoff, with the fix's day (UTC). */
  readonly flagged: readonly { readonly task: string; readonly fixDate: string }[]
  /** Tasks with no fix date to check (folder tasks, or git-fix tasks selected before `fix_date` was recorded). */
  readonly undated: readonly string[]
}

/** The UTC day of an ISO date and time. */
function utcDay(iso: string): string {
  return new Date(iso).toISOString().slice(0, 10)
}

/** The fix's day for a task (UTC, `YYYY-MM-DD`), or null when it has none. */
export function fixDay(task: Task): string | null {
  return task.kind === 'git-fix' && task.metadata.fix_date !== undefined ? utcDay(task.metadata.fix_date) : null
}

/** Checks tasks against a training cutoff; null when the experiment names none. */
export function checkContamination(tasks: readonly Task[], trainingCutoff: string | undefined): ContaminationCheck | null {
  if (trainingCutoff === undefined) return null
  const flagged: { task: string; fixDate: string }[] = []
  const undated: string[] = []
  for (const task of tasks) {
    const day = fixDay(task)
    if (day === null) undated.push(task.id)
    else if (day <= trainingCutoff) flagged.push({ task: task.id, fixDate: day })
  }
  return { trainingCutoff, flagged, undated }
}
