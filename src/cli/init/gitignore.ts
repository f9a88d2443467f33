import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * What stays out of git in a project that runs experiments: the per-run
 * artifacts and transcripts (agents read test files that may hold fake
 * credentials). runs.jsonl, spec.json and the reports are meant to be committed.
 */
export const IGNORED_ARTIFACTS: readonly string[] = ['bench/task_outcome/*/artifacts/', 'bench/task_outcome/*/transcripts/']

/** Adds the artifact patterns the project's `.gitignore` lacks; returns those it added. */
export function ignoreArtifacts(root: string): string[] {
  const file = path.join(root, '.gitignore')
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const present = new Set(text.split('\n').map((line) => line.trim()))
  const missing = IGNORED_ARTIFACTS.filter((pattern) => !present.has(pattern) && !present.has(`/${pattern}`))
  if (missing.length === 0) return []
  const separator = text === '' || text.endsWith('\n') ? '' : '\n'
  writeFileSync(file, `${text}${separator}# task-outcome: per-run artifacts and transcripts stay out of git\n${missing.join('\n')}\n`)
  return missing
}
