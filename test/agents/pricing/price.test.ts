import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { genaiUsage, hasPrice, priceRequests, priceTokens, sumTokens } from '../../../src/agents/pricing/price.ts'
import { HarnessFailure } from '../../../src/errors.ts'

// The real @pydantic/genai-prices with its bundled table (no network).
// Copied verbatim from the reference captures (../shared/reference/agent-output/).
const reference = path.join(import.meta.dirname, 'fixtures/genai-prices-check.txt')

describe('priceTokens', () => {
  it("reproduces Claude Code's own $0.0261 for the captured mock session (input excludes cache reads and writes)", () => {
    // claude-mock-session.jsonl: 12,600 input tokens in all, of which 6,000 cache reads and 2,000 cache writes.
    const priced = priceTokens({ input: 4600, cacheRead: 6000, cacheWrite: 2000, output: 200 }, { model: 'claude-sonnet-4-5', provider: 'anthropic' })
    expect(priced.costUsd).toBeCloseTo(0.0261, 10)
    expect(priced.provider).toBe('anthropic')
  })

  it('prices cache reads at the cached rate (gpt-5: $1.25 input, $0.125 cached, $10 output per million)', () => {
    const priced = priceTokens({ input: 1700, cacheRead: 1600, cacheWrite: 0, output: 150 }, { model: 'gpt-5', provider: 'openai' })
    expect(priced.costUsd).toBeCloseTo(1700 * 1.25e-6 + 1600 * 0.125e-6 + 150 * 10e-6, 12)
  })

  it('matches the provider from the model id when none is given, and names the table entry a variant is priced as', () => {
    const priced = priceTokens({ input: 1000, cacheRead: 0, cacheWrite: 0, output: 0 }, { model: 'gpt-5.1-codex' })
    expect(priced.provider).toBe('openai')
    expect(priced.pricedAs).toBe('gpt-5.1')
  })

  it('agrees with every line of the reference check made with the same package', () => {
    const lines = readFileSync(reference, 'utf8').trim().split('\n')
    expect(lines.length).toBeGreaterThanOrEqual(4)
    for (const line of lines) {
      const [, model, usageJson, resultJson] = /^(\S+) (\{.*?\}) => (\{.*\})$/.exec(line)!
      const usage = JSON.parse(usageJson!) as Record<string, number>
      const expected = JSON.parse(resultJson!) as { total_price: number; provider: string }
      const cacheRead = usage.cache_read_tokens ?? 0
      const cacheWrite = usage.cache_write_tokens ?? 0
      const tokens = { input: usage.input_tokens! - cacheRead - cacheWrite, cacheRead, cacheWrite, output: usage.output_tokens! }
      expect(genaiUsage(tokens)).toMatchObject(usage)
      expect(priceTokens(tokens, { model: model!, provider: expected.provider }).costUsd).toBeCloseTo(expected.total_price, 12)
    }
  })

  it('refuses a model the table does not price, as a harness failure no retry can fix, naming the option to set', () => {
    expect(hasPrice({ model: 'scripted-mock' })).toBe(false)
    expect(hasPrice({ model: 'gemini-2.5-flash', provider: 'google' })).toBe(true)
    let thrown: unknown
    try {
      priceTokens({ input: 10, cacheRead: 0, cacheWrite: 0, output: 10 }, { model: 'scripted-mock' })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(HarnessFailure)
    expect((thrown as HarnessFailure).retryable).toBe(false)
    expect((thrown as HarnessFailure).message).toMatch(/scripted-mock.*options\.priceModel/)
  })
})

describe('a session total', () => {
  it('is priced at the base rates even when it passes a long-context tier that applies per request', () => {
    // gpt-5.5: $5 input / $30 output per million, doubled past 272k tokens of one request's context.
    // Twenty requests of 20k tokens each are 400k in all, yet none of them reached the tier.
    const priced = priceTokens({ input: 400_000, cacheRead: 0, cacheWrite: 0, output: 2000 }, { model: 'gpt-5.5', provider: 'openai' })
    expect(priced.costUsd).toBeCloseTo(400_000 * 5e-6 + 2000 * 30e-6, 9)
  })
})

describe('a session priced request by request', () => {
  it('applies a long-context tier only to the request that passed it', () => {
    // gpt-5.5: $5 / $30 per million, $10 / $45 past 272k tokens of one request.
    const small = { input: 100_000, cacheRead: 0, cacheWrite: 0, output: 1000 }
    const large = { input: 300_000, cacheRead: 0, cacheWrite: 0, output: 1000 }
    const priced = priceRequests([small, large], { model: 'gpt-5.5', provider: 'openai' })
    expect(priced.costUsd).toBeCloseTo(100_000 * 5e-6 + 1000 * 30e-6 + 300_000 * 10e-6 + 1000 * 45e-6, 9)
    expect(sumTokens([small, large])).toEqual({ input: 400_000, cacheRead: 0, cacheWrite: 0, output: 2000 })
  })

  it('costs the same as the session total when no request passed a tier', () => {
    const requests = [
      { input: 1000, cacheRead: 0, cacheWrite: 0, output: 50 },
      { input: 300, cacheRead: 1200, cacheWrite: 0, output: 80 },
    ]
    const key = { model: 'gpt-5', provider: 'openai' }
    expect(priceRequests(requests, key).costUsd).toBeCloseTo(priceTokens(sumTokens(requests), key).costUsd, 12)
  })
})
