import { z } from 'zod'

/**
 * What an agent reports about its session's usage, as the run record keeps it:
 * the agents produce these, `runs/record.ts` composes them into `RunRecord`.
 */

const count = z.number().int().nonnegative()

/** Where `costUsd` came from: the agent's own report, tokens × a price table, or the budget cap (timeouts). */
export const CostSourceSchema = z.enum(['agent', 'priced', 'budget-cap'])
export type CostSource = z.infer<typeof CostSourceSchema>

/**
 * Token counts for the whole session, as an agent reports them and the
 * record keeps them: `input` excludes cache reads and writes; reasoning or
 * thinking tokens are inside `output` (they bill at the output rate).
 */
export const TokensSchema = z.strictObject({
  input: count,
  output: count,
  cacheRead: count,
  cacheWrite: count,
})
export type Tokens = z.infer<typeof TokensSchema>

/**
 * What the harness's metering gateway counted for a run, from the provider's
 * own usage fields in every response: the model requests that reported usage,
 * their tokens, their price (`@pydantic/genai-prices`, request by request),
 * and the models the provider named. Null in a record: the agent's traffic
 * was not metered (a `command` agent without a gateway, `gold`, `noop`).
 */
export const MeteredSchema = z.strictObject({
  requests: count,
  tokens: TokensSchema,
  costUsd: z.number().nonnegative(),
  models: z.array(z.string()),
})
export type Metered = z.infer<typeof MeteredSchema>
