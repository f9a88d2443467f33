import { parse } from 'yaml'
import { z } from 'zod'
import { type Problem, schemaProblems } from '../../errors.ts'

/**
 * A prompt's front matter: the words it must use although they are also a
 * gold file's module name ("query", "parse", "encoding"), each with the
 * reason. Written above the symptom between `---` lines:
 *
 * ```
 * ---
 * allow:
 *   query: users call the part of a URL after "?" its query; the symptom cannot be said without it
 * ---
 * ```
 *
 * The agent never sees it: `task.md` holds only the text below it. `select`
 * writes each allowance into the task's `metadata.json` (`allow`) and the
 * report lists them.
 */

/** One word a prompt may use although it names a gold file's module, and why. */
export interface PromptAllowance {
  readonly word: string
  readonly reason: string
}

const FrontMatterSchema = z.strictObject({
  allow: z.record(
    z.string().regex(/^\S+$/, 'one word (no spaces)'),
    z.string({ error: 'give the word its reason: `word: why the prompt must use it`' }).trim().min(1, 'give the word its reason'),
  ),
})

/** A prompt split into what the agent reads and the allowances above it. */
export interface SplitPrompt {
  /** The prompt without its front matter: what `task.md` holds. */
  readonly body: string
  readonly allow: readonly PromptAllowance[]
  /** Lines before the body (the front matter's), so a body line can be named in the file. */
  readonly bodyLineOffset: number
}

/** Splits off and validates a prompt's front matter; problems name the prompt file and the field. */
export function splitFrontMatter(text: string, file: string, problems: Problem[]): SplitPrompt {
  const lines = text.split('\n')
  if (lines[0]?.trim() !== '---') return { body: text, allow: [], bodyLineOffset: 0 }
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---')
  if (end < 0) {
    problems.push({ file, field: 'line 1', message: 'front matter opened with "---" is never closed: end it with a "---" line' })
    return { body: text, allow: [], bodyLineOffset: 0 }
  }
  const body = lines.slice(end + 1).join('\n')
  let data: unknown
  try {
    data = parse(lines.slice(1, end).join('\n'))
  } catch (error) {
    problems.push({ file, field: 'front matter', message: `is not YAML: ${(error as Error).message.split('\n')[0]}` })
    return { body, allow: [], bodyLineOffset: end + 1 }
  }
  if (Array.isArray((data as { allow?: unknown } | null)?.allow)) {
    problems.push({ file, field: 'allow', message: 'give each word its reason: `allow:` then one `word: why the prompt must use it` per line' })
    return { body, allow: [], bodyLineOffset: end + 1 }
  }
  const parsed = FrontMatterSchema.safeParse(data ?? {})
  if (!parsed.success) {
    for (const { field, message } of schemaProblems(parsed.error.issues)) problems.push({ file, field: field === '(root)' ? 'front matter' : field, message })
    return { body, allow: [], bodyLineOffset: end + 1 }
  }
  const allow = Object.entries(parsed.data.allow).map(([word, reason]) => ({ word, reason }))
  return { body, allow, bodyLineOffset: end + 1 }
}
