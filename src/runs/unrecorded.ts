import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { RunRecord } from './record.ts'

/**
 * A measured run that must not go into `runs.jsonl` (the recorder found the
 * file changed by someone else; a task folder or template was written while
 * the run's oracle ran) is kept whole beside it, in
 * `unrecorded/<task>.<arm>.seed-<n>.<time>.json`: nothing measured is lost,
 * and nothing unsound is pooled. Returns the file written.
 */
export function keepUnrecorded(outDir: string, run: RunRecord): string {
  const dir = path.join(outDir, 'unrecorded')
  mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${run.task}.${run.arm}.seed-${run.seed}.${Date.now()}.json`)
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`)
  return file
}
