import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * What stays out of git in a project that runs experiments: the installed
 * packages, and the per-run artifacts and transcripts (agents read test files
 * that may hold fake credentials). runs.jsonl, spec.json and the reports are
 * meant to be committed. `node_modules` has no trailing slash: `node_modules/`
 * matches only a folder, so a `node_modules` link (a prepared folder linked
 * into a checkout) would still be committed.
 */
export const IGNORED_PATTERNS: readonly string[] = ['node_modules', 'bench/task_outcome/*/artifacts/', 'bench/task_outcome/*/transcripts/']

/** Adds the patterns the project's `.gitignore` lacks; returns those it added. */
export function ignoreArtifacts(root: string): string[] {
  const file = path.join(root, '.gitignore')
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const present = new Set(text.split('\n').map((line) => line.trim()))
  const missing = IGNORED_PATTERNS.filter((pattern) => !present.has(pattern) && !present.has(`/${pattern}`))
  if (missing.length === 0) return []
  const separator = text === '' || text.endsWith('\n') ? '' : '\n'
  writeFileSync(file, `${text}${separator}# task-outcome: installed packages, per-run artifacts and transcripts stay out of git\n${missing.join('\n')}\n`)
  return missing
}
