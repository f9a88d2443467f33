import { z } from 'zod'

/**
 * What the oracle found, as the run record keeps it: the oracle produces
 * these, `runs/record.ts` composes them into `RunRecord`.
 */

const count = z.number().int().nonnegative()

const passedOfTotal = z.strictObject({ passed: count, total: count })

/** A git-fix task's oracle: the fix's own tests, run after the agent stopped. */
export const TestsOracleSchema = z.strictObject({
  failToPass: passedOfTotal,
  passToPass: passedOfTotal,
  /** Normalised ids of the FAIL_TO_PASS / PASS_TO_PASS tests that did not pass. */
  failing: z.array(z.string()),
})

/** A folder task's oracle: `verify.sh`'s exit status (0 = solved). */
export const VerifyOracleSchema = z.strictObject({ verifyExit: z.number().int() })

/** Either oracle's result, as one run record holds it. */
export const OracleSchema = z.union([TestsOracleSchema, VerifyOracleSchema])
export type OracleResult = z.infer<typeof OracleSchema>
