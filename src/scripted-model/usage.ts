import type { Usage } from './types.ts'

/**
 * Usage accounting: the scripted model reports tokens in proportion to what
 * it is sent and what it writes, so the CLI's own price table turns a longer
 * session into a higher cost, exactly as with a real model.
 */

/** Roughly four characters per token, as for English text and code. */
export const CHARS_PER_TOKEN = 4

/** Tokens of a text (at least 1 for non-empty text). */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / CHARS_PER_TOKEN)
}

/** What a protocol handler measured about one request's prompt. */
export interface PromptSize {
  /** Identifies the conversation whose prefix may be cached (system prompt and tools, say). */
  readonly cacheKey: string
  /** Tokens of the prompt up to the last point the request marks as cacheable (0: no caching). */
  readonly cacheableTokens: number
  /** Tokens after that point: always billed as plain input. */
  readonly uncachedTokens: number
}

/**
 * Prompt caching as the APIs bill it: per conversation, the part of the
 * cacheable prefix seen in an earlier request is a cache read, the rest of it
 * a cache write; what follows the last cache mark is plain input. One meter
 * lives as long as its server (one run).
 */
export class UsageMeter {
  readonly #cached = new Map<string, number>()
  readonly #zero: boolean
  #total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }

  /** `zero`: report no tokens at all (a test of the "$0 success" failure). */
  constructor(options: { readonly zero?: boolean } = {}) {
    this.#zero = options.zero ?? false
  }

  /** The usage of one response, given its prompt and the tokens written. */
  measure(prompt: PromptSize, outputTokens: number): Usage {
    if (this.#zero) return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
    const seen = this.#cached.get(prompt.cacheKey) ?? 0
    const cacheReadTokens = Math.min(seen, prompt.cacheableTokens)
    const cacheWriteTokens = prompt.cacheableTokens - cacheReadTokens
    if (prompt.cacheableTokens > seen) this.#cached.set(prompt.cacheKey, prompt.cacheableTokens)
    const usage: Usage = { inputTokens: prompt.uncachedTokens, outputTokens, cacheReadTokens, cacheWriteTokens }
    this.#total = {
      inputTokens: this.#total.inputTokens + usage.inputTokens,
      outputTokens: this.#total.outputTokens + usage.outputTokens,
      cacheReadTokens: this.#total.cacheReadTokens + usage.cacheReadTokens,
      cacheWriteTokens: this.#total.cacheWriteTokens + usage.cacheWriteTokens,
    }
    return usage
  }

  /** Everything billed so far, for tests that check the CLI's own totals against it. */
  get total(): Usage {
    return this.#total
  }
}
