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
