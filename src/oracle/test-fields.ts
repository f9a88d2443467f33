import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { PACKAGE_JSON_TEST_FIELDS, PYPROJECT_TEST_TABLE } from '../tasks/test-paths.ts'

/**
 * The test-side parts of files an agent may otherwise change: a fix may edit
 * `package.json` (a dependency) or `pyproject.toml` (a version), so the
 * oracle takes them, but how the tests start (`scripts`, `imports`, `type`,
 * the runners' sections; pytest's tables) stays as the clean parent has it.
 */

/** The files this applies to (by name, anywhere in the repository). */
export function hasTestFields(file: string): boolean {
  const name = path.posix.basename(file)
  return name === 'package.json' || name === 'pyproject.toml'
}

/** `package.json` text with the test fields of `base` (absent there: absent here). Null when either is not a JSON object. */
function packageJsonWithBaseFields(agent: string, base: string | null): { text: string; changed: string[] } | null {
  let theirs: unknown
  let ours: unknown
  try {
    theirs = JSON.parse(agent)
    ours = base === null ? {} : JSON.parse(base)
  } catch {
    return null
  }
  if (typeof theirs !== 'object' || theirs === null || Array.isArray(theirs) || typeof ours !== 'object' || ours === null) return null
  const out = { ...(theirs as Record<string, unknown>) }
  const changed: string[] = []
  for (const field of PACKAGE_JSON_TEST_FIELDS) {
    const before = (ours as Record<string, unknown>)[field]
    if (JSON.stringify(out[field]) === JSON.stringify(before)) continue
    changed.push(field)
    if (before === undefined) delete out[field]
    else out[field] = before
  }
  return { text: `${JSON.stringify(out, null, 2)}\n`, changed }
}

/** Splits TOML text into its leading keys and its tables, each table with its header line. */
function tomlTables(text: string): string[] {
  const parts: string[] = []
  let current: string[] = []
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line) && current.length > 0) {
      parts.push(current.join('\n'))
      current = []
    }
    current.push(line)
  }
  parts.push(current.join('\n'))
  return parts
}

/** `pyproject.toml` text with the pytest tables of `base` in place of the agent's. */
function pyprojectWithBaseTables(agent: string, base: string | null): { text: string; changed: string[] } {
  const isPytest = (part: string) => PYPROJECT_TEST_TABLE.test(part.trimStart())
  const theirs = tomlTables(agent).filter((part) => isPytest(part))
  const ours = base === null ? [] : tomlTables(base).filter((part) => isPytest(part))
  if (theirs.join('\n') === ours.join('\n')) return { text: agent, changed: [] }
  const kept = tomlTables(agent).filter((part) => !isPytest(part))
  const text = [...kept, ...ours].join('\n')
  return { text: text.endsWith('\n') ? text : `${text}\n`, changed: ['[tool.pytest…]'] }
}

/**
 * Puts the clean parent's test fields back into `file` in the oracle's copy
 * (the agent's version of it), `base` being the parent's text (null when the
 * agent added the file). Returns the fields it put back (empty: none
 * differed, nothing written).
 */
export async function restoreTestFields(copy: string, file: string, base: string | null): Promise<string[]> {
  const target = path.join(copy, file)
  const agent = await readFile(target, 'utf8').catch(() => null)
  if (agent === null) return []
  const result = path.posix.basename(file) === 'package.json' ? packageJsonWithBaseFields(agent, base) : pyprojectWithBaseTables(agent, base)
  if (result === null) {
    // Not JSON the oracle can read: the parent's file as a whole (a broken package.json is no fix).
    if (base === null) return []
    await writeFile(target, base)
    return ['the whole file (not a JSON object)']
  }
  if (result.changed.length > 0) await writeFile(target, result.text)
  return result.changed
}
