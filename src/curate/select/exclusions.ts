import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { ProblemsError, schemaProblems, type Problem } from '../../errors.ts'

/**
 * `exclusions.json`: candidates a person ruled out before the seeded walk,
 * each with one of the pre-registration's reasons and a sentence saying why.
 * Written before `select` runs and never by it.
 */

/** The reasons that count (the pre-registration's (a), (b) and (c)). */
export const EXCLUSION_REASONS = {
  a: "the failing tests check documentation, wording or test infrastructure rather than the program's behaviour",
  b: "the symptom can't be stated without naming the file or function to change",
  c: "the FAIL_TO_PASS tests depend on something a symptom can't reach: a name, parameter, constant or file format the fix itself introduces, or an internal input no user-facing path produces",
} as const
/** One of the reasons: `a`, `b` or `c`. */
export type ExclusionReason = keyof typeof EXCLUSION_REASONS

/** `exclusions.json` (strict: an unknown key is an error). */
export const ExclusionsFileSchema = z.strictObject({
  exclusions: z.array(
    z.strictObject({
      /** The fix commit: its full id or a prefix of at least 7 hex digits. */
      commit: z.string().regex(/^[0-9a-f]{7,40}$/, 'the fix commit id, or a prefix of at least 7 hex digits'),
      reason: z.enum(Object.keys(EXCLUSION_REASONS) as [ExclusionReason, ...ExclusionReason[]]),
      /** Why, in a sentence a reviewer can check against the commit. */
      why: z.string().min(10, 'say why in a sentence a reviewer can check'),
    }),
  ),
})
/** The contents of `exclusions.json`. */

/** One exclusion, matched to its candidate. */
export interface Exclusion {
  readonly fix: string
  readonly reason: ExclusionReason
  readonly why: string
}

/**
 * Reads `exclusions.json` and matches each entry to exactly one candidate.
 * Every problem (bad JSON, a bad field, a commit that matches no candidate or
 * several, a candidate excluded twice) is reported at once.
 */
export async function readExclusions(file: string, candidateFixes: readonly string[]): Promise<Map<string, Exclusion>> {
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    throw new ProblemsError('The exclusions file cannot be read:', [
      { file, message: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not valid JSON: ${(error as Error).message}` },
    ])
  }
  const parsed = ExclusionsFileSchema.safeParse(raw)
  const problems: Problem[] = []
  if (!parsed.success) {
    for (const problem of schemaProblems(parsed.error.issues)) problems.push({ file, ...problem })
    throw new ProblemsError('The exclusions file is not valid:', problems)
  }
  const exclusions = new Map<string, Exclusion>()
  parsed.data.exclusions.forEach((entry, index) => {
    const field = `exclusions.${index}.commit`
    const matches = candidateFixes.filter((fix) => fix.startsWith(entry.commit))
    if (matches.length === 0) problems.push({ file, field, message: `"${entry.commit}" matches no candidate` })
    else if (matches.length > 1) problems.push({ file, field, message: `"${entry.commit}" matches ${matches.length} candidates: give more digits` })
    else if (exclusions.has(matches[0]!)) problems.push({ file, field, message: `${matches[0]} is excluded twice` })
    else exclusions.set(matches[0]!, { fix: matches[0]!, reason: entry.reason, why: entry.why })
  })
  if (problems.length > 0) throw new ProblemsError('The exclusions file does not match the candidates:', problems)
  return exclusions
}
