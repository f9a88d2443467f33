import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { HarnessFailure } from '../../errors.ts'

/**
 * The run's Gemini CLI settings: written into the run's own HOME
 * (`~/.gemini/settings.json`), deep-merged over whatever the arm's setup put
 * there (a tool's hooks, say), so the arm's settings survive. Not the system
 * settings file: the CLI ignores one whose parent folders others may write
 * to, as the system temp folder is.
 */

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** `over` deep-merged onto `base`: objects merge key by key, anything else is replaced. */
export function mergeSettings(base: Json, over: Json): Json {
  const merged: Json = { ...base }
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key]
    merged[key] = isObject(current) && isObject(value) ? mergeSettings(current, value) : value
  }
  return merged
}

/** Merges `settings` into `<home>/.gemini/settings.json` and returns the file. */
export async function writeRunSettings(home: string, settings: Json): Promise<string> {
  const file = path.join(home, '.gemini', 'settings.json')
  let existing: Json = {}
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'))
    if (isObject(parsed)) existing = parsed
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new HarnessFailure('setup', `${file} (from the arm's setup) is not valid JSON: ${(error as Error).message}`, { retryable: false, cause: error })
    }
  }
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, `${JSON.stringify(mergeSettings(existing, settings), null, 2)}\n`)
  return file
}
