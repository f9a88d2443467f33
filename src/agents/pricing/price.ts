import { calcPrice } from '@pydantic/genai-prices'
import { HarnessFailure, SpecError } from '../../errors.ts'
import type { Tokens } from '../usage.ts'

/**
 * Cost in USD from token counts, with the price table bundled in
 * `@pydantic/genai-prices` (offline, versioned with the package). Agents that
 * report no cost of their own (Codex, Gemini, Cursor) are priced here, so the
 * same tokens always cost the same whatever the agent.
 */

/** Which price applies: the model id as the price table names it, and optionally its provider. */
export interface PriceKey {
  /** e.g. `gpt-5`, `gemini-2.5-flash`, `claude-sonnet-4-5`. */
  readonly model: string
  /** e.g. `openai`, `google`, `anthropic`; matched from the model id when absent. */
  readonly provider?: string
}

/** A computed price and the table entry it came from. */
export interface Priced {
  readonly costUsd: number
  /** The price table's model id that matched (`gpt-5.1-codex` is priced as `gpt-5.1`). */
  readonly pricedAs: string
  readonly provider: string
}

/**
 * The genai-prices usage for our `Tokens`. Ours keep input apart from cache
 * reads and writes; genai-prices wants `input_tokens` to be the total with the
 * cache counts as parts of it (its README; `genai-prices-check.txt` reproduced
 * Claude Code's own $0.0261 only this way). Reasoning or thinking tokens must
 * already be inside `output` (they bill at the output rate).
 */
export function genaiUsage(tokens: Tokens): Record<string, number> {
  return {
    input_tokens: tokens.input + tokens.cacheRead + tokens.cacheWrite,
    cache_read_tokens: tokens.cacheRead,
    cache_write_tokens: tokens.cacheWrite,
    output_tokens: tokens.output,
  }
}

/** True when the price table has a price for `key` (checked before any run, so no money is spent unpriced). */
export function hasPrice(key: PriceKey): boolean {
  return lookup({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, key) !== null
}

/**
 * Session totals are priced in slices no bigger than this many input tokens.
 * Long-context tiers (gpt-5.5 doubles its input price past 272k tokens,
 * gemini-2.5-pro and claude-sonnet-4-5 past 200k) apply to one request's
 * context, and genai-prices applies them to whatever usage it is given: fed a
 * whole session's total, it would charge every token of a long session at the
 * long-context rate. Prices are linear below the tiers, so slicing the total
 * into equal parts below every tier prices it at the base rates.
 */
const SLICE_INPUT_TOKENS = 1000

function lookup(tokens: Tokens, key: PriceKey): { total: number; model: string; provider: string } | null {
  const total = tokens.input + tokens.cacheRead + tokens.cacheWrite
  const slices = Math.max(1, Math.ceil(total / SLICE_INPUT_TOKENS))
  const slice = genaiUsage(tokens)
  for (const name of Object.keys(slice)) slice[name] = slice[name]! / slices
  const result = calcPrice(slice, key.model, key.provider === undefined ? {} : { providerId: key.provider })
  return result === null ? null : { total: result.total_price * slices, model: result.model.id, provider: result.provider.id }
}

/**
 * Prices a session's `tokens` for `key` at the base (not long-context) rates;
 * a session whose single requests passed a long-context tier is under-priced
 * by the difference, since its stream reports only totals. A model the table does not know is a harness
 * failure that no retry can fix: the run used tokens nobody can cost, so it
 * must not be recorded (set the adapter's `priceModel` option to the table's
 * name for the model).
 */
export function priceTokens(tokens: Tokens, key: PriceKey): Priced {
  let result: ReturnType<typeof lookup>
  try {
    result = lookup(tokens, key)
  } catch (error) {
    throw new HarnessFailure('refused', `pricing ${key.model}: ${error instanceof Error ? error.message : String(error)}`, {
      retryable: false,
      cause: error,
    })
  }
  if (result === null) {
    throw new HarnessFailure(
      'refused',
      `@pydantic/genai-prices has no price for model "${key.model}"${key.provider === undefined ? '' : ` of provider "${key.provider}"`}: set the agent's options.priceModel (and options.priceProvider) to a model it prices, e.g. "gpt-5" / "openai"`,
      { retryable: false },
    )
  }
  return { costUsd: result.total, pricedAs: result.model, provider: result.provider }
}

/**
 * Prices a session request by request, when the agent recorded each
 * request's usage: long-context tiers then apply exactly where they did.
 */
export function priceRequests(requests: readonly Tokens[], key: PriceKey): Priced {
  let costUsd = 0
  let matched: { model: string; provider: string } | undefined
  for (const tokens of requests) {
    let result: ReturnType<typeof calcPrice>
    try {
      result = calcPrice(genaiUsage(tokens), key.model, key.provider === undefined ? {} : { providerId: key.provider })
    } catch (error) {
      throw new HarnessFailure('refused', `pricing ${key.model}: ${error instanceof Error ? error.message : String(error)}`, { retryable: false, cause: error })
    }
    if (result === null) return priceTokens(sumTokens(requests), key) // throws the "no price" failure
    costUsd += result.total_price
    matched = { model: result.model.id, provider: result.provider.id }
  }
  if (matched === undefined) return priceTokens(sumTokens(requests), key)
  return { costUsd, pricedAs: matched.model, provider: matched.provider }
}

/** The field-wise sum of token counts. */
export function sumTokens(list: readonly Tokens[]): Tokens {
  return list.reduce<Tokens>(
    (sum, tokens) => ({
      input: sum.input + tokens.input,
      output: sum.output + tokens.output,
      cacheRead: sum.cacheRead + tokens.cacheRead,
      cacheWrite: sum.cacheWrite + tokens.cacheWrite,
    }),
    { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  )
}

/**
 * The model a token-priced agent runs and the price that applies, checked
 * when the agent is made (before any run): `agent.model` is required
 * (`needsModel` says why, in the adapter's words) and must have a price,
 * under `options.priceModel` when the table names it differently.
 */
export function modelPrice(
  kind: string,
  model: string | undefined,
  options: { readonly priceModel?: string | undefined; readonly priceProvider?: string | undefined },
  needsModel: string,
): { readonly model: string; readonly price: PriceKey } {
  if (model === undefined) throw new SpecError(`the ${kind} agent needs agent.model${needsModel}`)
  const price: PriceKey = { model: options.priceModel ?? model, ...(options.priceProvider === undefined ? {} : { provider: options.priceProvider }) }
  if (!hasPrice(price)) {
    throw new SpecError(
      `the ${kind} agent's model "${price.model}"${price.provider === undefined ? '' : ` (provider ${price.provider})`} has no price in @pydantic/genai-prices: set agent.options.priceModel (and priceProvider) to the model it is billed as`,
    )
  }
  return { model, price }
}

/**
 * A token-priced session's cost: request by request when the agent's
 * per-request usage adds up to its totals (long-context prices apply per
 * request, and no side request was billed apart), else the totals; $0 when
 * the agent reported no tokens.
 */
export function priceSession(tokens: Tokens | null, requests: readonly Tokens[], key: PriceKey): { readonly costUsd: number; readonly costSource: 'priced' } {
  if (tokens === null) return { costUsd: 0, costSource: 'priced' }
  const sum = sumTokens(requests)
  const consistent = requests.length > 0 && (['input', 'output', 'cacheRead', 'cacheWrite'] as const).every((field) => sum[field] === tokens[field])
  return { costUsd: (consistent ? priceRequests(requests, key) : priceTokens(tokens, key)).costUsd, costSource: 'priced' }
}
