import { z } from 'zod'
import { FaultRuleSchema } from './faults.ts'

/**
 * What an agent's `scriptedModel` option may set: the policy's rates and
 * ranges, and the test-only switches (`faults`, `latencyMs`, `zeroUsage`).
 * Every CLI adapter accepts the same option.
 */

const range = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).refine(([min, max]) => min <= max, 'write [min, max] with min ≤ max')

/** Runs the session against the project's scripted model server instead of a real model. */
export const ScriptedModelOptionsSchema = z.strictObject({
  /** Chance of a wrong edit (the file changes, the bug stays). Default 0.15. */
  wrongEditRate: z.number().min(0).max(1).optional(),
  /** Content searches when the file to change is not known: [min, max]. Default [1, 2]. */
  searches: range.optional(),
  /** Other files read when the file to change is not known: [min, max]. Default [1, 3]. */
  decoyReads: range.optional(),
  /** Chance that a session told where to look still reads one other file. Default 0.25. */
  hintedDecoyRate: z.number().min(0).max(1).optional(),
  /** Failures to inject into model calls (401, 529, drop, stall, …), for tests. */
  faults: z.array(FaultRuleSchema).default([]),
  /** Delay before each model answer, in ms (default 0). */
  latencyMs: z.number().int().nonnegative().default(0),
  /** Report zero tokens, so the CLI's cost is $0 (the "$0 success" failure), for tests. */
  zeroUsage: z.boolean().default(false),
})
export type ScriptedModelOptions = z.infer<typeof ScriptedModelOptionsSchema>
