import { calcPrice } from '@pydantic/genai-prices'
import { HarnessFailure } from '../errors.ts'
import type { GatewayExchange } from '../sandbox/index.ts'
import { genaiUsage, sumTokens, type PriceKey } from './pricing/price.ts'
import type { Metered, Tokens } from './usage.ts'

/**
 * A run's metered usage from its gateway's exchanges: each response that
 * reported usage is one request, priced on its own (long-context tiers apply
 * per request, as the provider bills them) under the model the provider
 * named, or `price` when the adapter names the model the table knows it by
 * (`options.priceModel`). The gateway's protocol gives the provider.
 * `models` lists the provider's model names, the most requested first.
 */

const PROVIDER = { anthropic: 'anthropic', openai: 'openai', gemini: 'google' } as const

/** The record's `metered` from what the gateway counted; an unpriceable model is a harness failure (tokens nobody can cost). */
export function meteredUsage(exchanges: readonly GatewayExchange[], price?: PriceKey): Metered {
  const requests: Tokens[] = []
  const models: string[] = []
  let costUsd = 0
  for (const exchange of exchanges) {
    const usage = exchange.usage
    if (usage === null) continue
    requests.push(usage.tokens)
    if (usage.model !== null && !models.includes(usage.model)) models.push(usage.model)
    const model = price?.model ?? usage.model
    const provider = price?.provider ?? (price === undefined ? PROVIDER[usage.protocol] : undefined)
    const result = model === null ? null : safePrice(usage.tokens, model, provider)
    if (result === null && tokenCount(usage.tokens) > 0) {
      throw new HarnessFailure(
        'refused',
        `the metering gateway counted ${tokenCount(usage.tokens)} tokens of model "${model ?? '(unnamed)'}" that @pydantic/genai-prices has no price for: set the agent's options.priceModel (and priceProvider) to the model it is billed as`,
        { retryable: false },
      )
    }
    costUsd += result ?? 0
  }
  const uses = (model: string) => exchanges.filter((exchange) => exchange.usage?.model === model).length
  return { requests: requests.length, tokens: sumTokens(requests), costUsd, models: models.sort((a, b) => uses(b) - uses(a)) }
}

function tokenCount(tokens: Tokens): number {
  return tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite
}

function safePrice(tokens: Tokens, model: string, provider: string | undefined): number | null {
  try {
    return calcPrice(genaiUsage(tokens), model, provider === undefined ? {} : { providerId: provider })?.total_price ?? null
  } catch {
    return null
  }
}
