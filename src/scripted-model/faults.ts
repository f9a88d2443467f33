import { z } from 'zod'

/**
 * Failure injection: the scripted model server can be told to fail the way a
 * real API does, so tests can prove each failure ends as a harness failure.
 * Faults apply to model calls only (not to token counting or health checks).
 */

/** One way to fail. */
export const FaultSchema = z.discriminatedUnion('kind', [
  /** Answer with this HTTP status and the protocol's error body (401, 429, 500, 529 overloaded, …). */
  z.strictObject({ kind: z.literal('status'), status: z.number().int().min(400).max(599), message: z.string().optional() }),
  /** Close the connection without answering. */
  z.strictObject({ kind: z.literal('drop') }),
  /** Accept the request and never answer (until the server closes). */
  z.strictObject({ kind: z.literal('stall') }),
])
export type Fault = z.infer<typeof FaultSchema>

/** A fault and the model calls it applies to. */
export const FaultRuleSchema = z.strictObject({
  fault: FaultSchema,
  /** The first model call (0-based, counted over the server's life) that fails. Default 0. */
  from: z.number().int().nonnegative().default(0),
  /** How many model calls fail from there. Default: all. */
  count: z.number().int().positive().optional(),
})
export type FaultRule = z.infer<typeof FaultRuleSchema>
export type FaultRuleInput = z.input<typeof FaultRuleSchema>

/** The fault for the model call with this index, if any rule covers it (first rule wins). */
export function faultFor(rules: readonly FaultRule[], callIndex: number): Fault | undefined {
  return rules.find((rule) => callIndex >= rule.from && (rule.count === undefined || callIndex < rule.from + rule.count))?.fault
}

/** The conventional message of an injected status. */
export function faultMessage(status: number): string {
  if (status === 401) return 'invalid x-api-key'
  if (status === 403) return 'permission denied'
  if (status === 429) return 'rate limited (injected by the scripted model server)'
  if (status === 529) return 'Overloaded'
  return `injected failure: HTTP ${status}`
}
