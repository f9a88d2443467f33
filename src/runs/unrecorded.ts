import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { HarnessFailure } from '../errors.ts'
import type { RunRecord } from './record.ts'

/**
 * Runs that must not go into `runs.jsonl` are kept beside it, in
 * `unrecorded/`: nothing measured is lost, and nothing unsound is pooled.
 */

/** `<task>.<arm>.seed-<n>.<time>`: one kept run's name. */
function keptName(run: { readonly task: string; readonly arm: string; readonly seed: number }): string {
  return `${run.task}.${run.arm}.seed-${run.seed}.${Date.now()}`
}

/**
 * A measured run that must not be recorded (the recorder found the file
 * changed by someone else; a task folder or template was written while the
 * run's oracle ran) is kept whole in `unrecorded/<task>.<arm>.seed-<n>.<time>.json`.
 * Returns the file written.
 */
export function keepUnrecorded(outDir: string, run: RunRecord): string {
  const dir = path.join(outDir, 'unrecorded')
  mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${keptName(run)}.json`)
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`)
  return file
}

/** Who a tampered session was, as its kept file names it. */
export interface TamperedRunIdentity {
  readonly experiment: string
  readonly specSha256: string
  readonly task: string
  readonly arm: string
  readonly seed: number
  readonly order: number
}

/**
 * A session whose own report was forged (a second `result` event, a usage
 * file rewritten under it) has no trustworthy numbers of its own, so it is
 * never a record; what the harness has of it is kept in
 * `unrecorded/<task>.<arm>.seed-<n>.<time>.json`: who it was, why it is
 * `tampered`, what the harness measured itself (the gateway's `metered`),
 * and a copy of its artifacts folder (the transcript as the agent printed it,
 * its change as `diff.patch`, the tailed usage files) in the folder of the
 * same name, which a later start of the same run does not clear. Returns the
 * JSON file written.
 */
export function keepTamperedSession(
  outDir: string,
  run: TamperedRunIdentity,
  failure: HarnessFailure,
  artifactsDir: string,
  times: { readonly startedAt: Date; readonly finishedAt: Date },
): string {
  const dir = path.join(outDir, 'unrecorded')
  const name = keptName(run)
  mkdirSync(dir, { recursive: true })
  if (existsSync(artifactsDir)) cpSync(artifactsDir, path.join(dir, name), { recursive: true, force: false, errorOnExist: false, verbatimSymlinks: true })
  const kept = {
    ...run,
    outcome: 'tampered',
    reason: failure.reason,
    message: failure.message,
    metered: failure.measured?.metered ?? null,
    artifacts: name,
    startedAt: times.startedAt.toISOString(),
    finishedAt: times.finishedAt.toISOString(),
  }
  const file = path.join(dir, `${name}.json`)
  writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`)
  return file
}
