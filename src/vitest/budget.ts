import { mkdirSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { writeFileAtomic } from '../shared/atomic-write.ts'

/**
 * The whole-experiment budget (`maxBudgetUsd`) at run time. Runs start in
 * several workers at once, so before a run starts its worker reserves the
 * run's cap in the invocation's session folder under a lock; a run is started
 * only when the money already spent, plus the caps of the runs under way,
 * plus its own cap stays within the limit. When it ends the reservation is
 * settled to what it cost. A run refused here is not started (its case is
 * skipped with a note) and is reported missing.
 */

/** The budget as the workers apply it (see `TaskModulePayload.budget`). */
export interface BudgetLimit {
  readonly maxUsd: number
  readonly spentBeforeUsd: number
  readonly runCapUsd: number
}

/** A run's reservation: settle it with what the run cost. */
export interface Reservation {
  settle(costUsd: number): void
}

/** Why a run was not started: the spend so far, the caps under way, the limit. */
export interface BudgetRefusal {
  readonly spentUsd: number
  readonly runningUsd: number
  readonly maxUsd: number
}

interface Entry {
  readonly capUsd: number
  readonly costUsd: number | null
}

const sleepBuffer = new Int32Array(new SharedArrayBuffer(4))
const LOCK_STALE_MS = 30_000

/** Runs `body` holding the folder's lock (mkdir is atomic; a lock older than 30 s is a dead holder's). */
function withLock<T>(dir: string, body: () => T): T {
  const lock = path.join(dir, '.lock')
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmdirSync(lock)
      } catch {
        // Released meanwhile.
      }
      Atomics.wait(sleepBuffer, 0, 0, 10)
    }
  }
  try {
    return body()
  } finally {
    rmdirSync(lock)
  }
}

function entryFile(dir: string, key: string): string {
  return path.join(dir, `${key.replace(/[^A-Za-z0-9._-]/g, '_')}.json`)
}

/** Writes an entry whole (the shared atomic write: a temporary file named by the process, then a rename), so workers never see half of one or share a temporary file. */
function writeEntry(file: string, entry: Entry): void {
  writeFileAtomic(file, JSON.stringify(entry))
}

/**
 * Reserves a run's cap against the limit, or says why it cannot start.
 * `dir` is the experiment's budget folder in the session (shared by the workers).
 */
export function reserveRun(dir: string, key: string, limit: BudgetLimit): Reservation | BudgetRefusal {
  mkdirSync(dir, { recursive: true })
  return withLock(dir, () => {
    let spentUsd = limit.spentBeforeUsd
    let runningUsd = 0
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.json')) continue
      const entry = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as Entry
      if (entry.costUsd === null) runningUsd += entry.capUsd
      else spentUsd += entry.costUsd
    }
    if (spentUsd + runningUsd + limit.runCapUsd > limit.maxUsd + 1e-9) return { spentUsd, runningUsd, maxUsd: limit.maxUsd }
    const file = entryFile(dir, key)
    writeEntry(file, { capUsd: limit.runCapUsd, costUsd: null })
    return { settle: (costUsd: number) => writeEntry(file, { capUsd: limit.runCapUsd, costUsd }) }
  })
}

/** True when `reserveRun` refused. */
export function isRefusal(result: Reservation | BudgetRefusal): result is BudgetRefusal {
  return 'maxUsd' in result
}
