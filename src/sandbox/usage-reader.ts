/**
 * Reading a provider's own usage fields out of one model response, as the
 * metering gateway sees it pass: a JSON body or a server-sent event stream.
 * Each API reports usage its own way, and the gateway knows three of them:
 *
 * - Anthropic Messages: `message_start` carries the message's usage,
 *   `message_delta` the final output count (and, in newer APIs, the input
 *   counts again); later fields win. A plain response has `usage` itself.
 * - OpenAI Responses: `response.completed` (or `.incomplete`, `.failed`)
 *   carries `response.usage`; `input_tokens` includes the cached ones.
 *   Chat Completions' `usage` (`prompt_tokens`) is read too, for `command` agents.
 * - Gemini: every chunk may carry a cumulative `usageMetadata`; the last one
 *   counts. `promptTokenCount` includes the cached tokens, thoughts bill as output.
 */

/** One response's tokens, split the way prices are: plain input, output (reasoning included), cache reads, cache writes. */
export interface ResponseTokens {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
}

/** What one response reported: its model (as the provider named it) and tokens, when it carried usage. */
export interface ResponseUsage {
  readonly protocol: 'anthropic' | 'openai' | 'gemini'
  readonly model: string | null
  readonly tokens: ResponseTokens
}

type Json = Record<string, unknown>

const object = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined)
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0)
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

/** Folds the usage-bearing objects of one response (each JSON body, or each SSE `data:` payload) into its usage. */
export class UsageReader {
  #protocol: ResponseUsage['protocol'] | null = null
  #model: string | null = null
  #anthropic: Json = {}
  #tokens: ResponseTokens | null = null

  /** One parsed JSON value of the response. */
  add(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) this.add(item)
      return
    }
    const event = object(value)
    if (event === undefined) return
    const type = event.type
    if (type === 'message_start' || type === 'message') {
      const message = type === 'message' ? event : object(event.message)
      this.#model = text(message?.model) ?? this.#model
      this.#anthropicUsage(object(message?.usage))
    } else if (type === 'message_delta') {
      this.#anthropicUsage(object(event.usage))
    } else if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed' || event.object === 'response') {
      const response = event.object === 'response' ? event : object(event.response)
      this.#model = text(response?.model) ?? this.#model
      this.#openaiUsage(object(response?.usage))
    } else if (event.object === 'chat.completion' || event.object === 'chat.completion.chunk') {
      this.#model = text(event.model) ?? this.#model
      this.#openaiUsage(object(event.usage))
    } else if (object(event.usageMetadata) !== undefined) {
      this.#model = text(event.modelVersion) ?? this.#model
      const usage = object(event.usageMetadata)!
      const prompt = count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount)
      const cached = Math.min(prompt, count(usage.cachedContentTokenCount))
      this.#set('gemini', { input: prompt - cached, output: count(usage.candidatesTokenCount) + count(usage.thoughtsTokenCount), cacheRead: cached, cacheWrite: 0 })
    }
  }

  #anthropicUsage(usage: Json | undefined): void {
    if (usage === undefined) return
    this.#anthropic = { ...this.#anthropic, ...Object.fromEntries(Object.entries(usage).filter(([, field]) => typeof field === 'number')) }
    const u = this.#anthropic
    this.#set('anthropic', {
      input: count(u.input_tokens),
      output: count(u.output_tokens),
      cacheRead: count(u.cache_read_input_tokens),
      cacheWrite: count(u.cache_creation_input_tokens),
    })
  }

  #openaiUsage(usage: Json | undefined): void {
    if (usage === undefined) return
    const input = count(usage.input_tokens ?? usage.prompt_tokens)
    const cached = Math.min(input, count(object(usage.input_tokens_details ?? usage.prompt_tokens_details)?.cached_tokens))
    this.#set('openai', { input: input - cached, output: count(usage.output_tokens ?? usage.completion_tokens), cacheRead: cached, cacheWrite: 0 })
  }

  #set(protocol: ResponseUsage['protocol'], tokens: ResponseTokens): void {
    this.#protocol = protocol
    this.#tokens = tokens
  }

  /** The response's usage, or null when nothing in it reported any. */
  get usage(): ResponseUsage | null {
    return this.#protocol === null || this.#tokens === null ? null : { protocol: this.#protocol, model: this.#model, tokens: this.#tokens }
  }
}

/**
 * Splits a server-sent event stream into its `data:` payloads as chunks
 * arrive (a payload may be cut anywhere between two chunks), handing each
 * JSON payload to `onData`; others (`[DONE]`, comments) are skipped.
 */
export class EventStreamSplitter {
  #pending = ''
  readonly #onData: (value: unknown) => void

  constructor(onData: (value: unknown) => void) {
    this.#onData = onData
  }

  /** A chunk of the stream, as decoded text. */
  push(chunk: string): void {
    this.#pending += chunk
    let newline = this.#pending.indexOf('\n')
    while (newline >= 0) {
      this.#line(this.#pending.slice(0, newline).replace(/\r$/, ''))
      this.#pending = this.#pending.slice(newline + 1)
      newline = this.#pending.indexOf('\n')
    }
  }

  /** The stream ended: a last line without its newline still counts. */
  end(): void {
    if (this.#pending !== '') this.#line(this.#pending)
    this.#pending = ''
  }

  #line(line: string): void {
    if (!line.startsWith('data:')) return
    const payload = line.slice(5).trim()
    if (payload === '' || payload === '[DONE]') return
    try {
      this.#onData(JSON.parse(payload))
    } catch {
      // Not JSON: no usage in it.
    }
  }
}
