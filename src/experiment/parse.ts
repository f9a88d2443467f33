import type { z } from 'zod'
import { ProblemsError, type Problem } from '../errors.ts'
import { ExperimentSchema, type Experiment } from './schema.ts'

/** Turns zod issues into problems naming the file and the dotted field path. */
export function issuesToProblems(file: string, issues: readonly z.core.$ZodIssue[]): Problem[] {
  const fieldOf = (path: readonly PropertyKey[]) => (path.length === 0 ? '(root)' : path.map(String).join('.'))
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ file, field: fieldOf([...issue.path, key]), message: 'unknown field: remove it or fix its spelling' }))
      : [{ file, field: fieldOf(issue.path), message: issue.message }],
  )
}

/**
 * Validates an experiment definition and applies its defaults. Every problem
 * is reported at once, each with the file and field, so a spec is fixed in one pass.
 */
export function parseExperiment(input: unknown, file: string): Experiment {
  const parsed = ExperimentSchema.safeParse(input)
  if (!parsed.success) {
    throw new ProblemsError(`${file}: the experiment is not valid:`, issuesToProblems(file, parsed.error.issues))
  }
  return parsed.data
}
