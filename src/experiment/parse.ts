import type { z } from 'zod'
import { ProblemsError, schemaProblems, type Problem } from '../errors.ts'
import { ExperimentSchema, type Experiment } from './schema.ts'

/** Turns zod issues into problems naming the file and the dotted field path. */
export function issuesToProblems(file: string, issues: readonly z.core.$ZodIssue[]): Problem[] {
  return schemaProblems(issues).map((problem) => ({ file, ...problem }))
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
