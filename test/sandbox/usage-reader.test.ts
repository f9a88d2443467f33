import { describe, expect, test } from 'vitest'
import { EventStreamSplitter, type ResponseUsage, UsageReader } from '../../src/sandbox/usage-reader.ts'

const read = (...values: unknown[]): ResponseUsage | null => {
  const reader = new UsageReader()
  for (const value of values) reader.add(value)
  return reader.usage
}

const stream = (chunks: readonly string[], end = true): unknown[] => {
  const payloads: unknown[] = []
  const splitter = new EventStreamSplitter((value) => payloads.push(value))
  for (const chunk of chunks) splitter.push(chunk)
  if (end) splitter.end()
  return payloads
}

const tokens = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({ input, output, cacheRead, cacheWrite })

describe('Anthropic Messages', () => {
  test('a plain response reports its own usage and model', () => {
    expect(
      read({
        type: 'message',
        model: 'claude-sonnet-4-5',
        usage: { input_tokens: 12, output_tokens: 34, cache_read_input_tokens: 56, cache_creation_input_tokens: 78 },
      }),
    ).toEqual({ protocol: 'anthropic', model: 'claude-sonnet-4-5', tokens: tokens(12, 34, 56, 78) })
  })

  test('a stream takes message_start usage, then message_delta output wins', () => {
    expect(
      read(
        { type: 'message_start', message: { model: 'claude-haiku', usage: { input_tokens: 100, output_tokens: 1, cache_read_input_tokens: 20, cache_creation_input_tokens: 5 } } },
        { type: 'content_block_delta', delta: { text: 'hi' } },
        { type: 'message_delta', usage: { output_tokens: 42 } },
        { type: 'message_stop' },
      ),
    ).toEqual({ protocol: 'anthropic', model: 'claude-haiku', tokens: tokens(100, 42, 20, 5) })
  })

  test('message_delta input counts, when a newer API sends them again, win too', () => {
    expect(
      read(
        { type: 'message_start', message: { model: 'claude', usage: { input_tokens: 10, output_tokens: 1 } } },
        { type: 'message_delta', usage: { input_tokens: 15, output_tokens: 7, cache_read_input_tokens: 3 } },
      ),
    ).toEqual({ protocol: 'anthropic', model: 'claude', tokens: tokens(15, 7, 3, 0) })
  })

  test('a field that is not a number in a later event keeps the earlier value', () => {
    expect(
      read(
        { type: 'message_start', message: { model: 'claude', usage: { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 4 } } },
        { type: 'message_delta', usage: { input_tokens: null, output_tokens: 9, cache_read_input_tokens: '100' } },
      ),
    ).toEqual({ protocol: 'anthropic', model: 'claude', tokens: tokens(10, 9, 4, 0) })
  })

  test('a message_delta alone reports its usage without a model', () => {
    expect(read({ type: 'message_delta', usage: { output_tokens: 5 } })).toEqual({ protocol: 'anthropic', model: null, tokens: tokens(0, 5) })
  })

  test('a later message without a model keeps the earlier model', () => {
    expect(
      read({ type: 'message_start', message: { model: 'claude-a', usage: { input_tokens: 1 } } }, { type: 'message_start', message: { model: '', usage: { output_tokens: 2 } } }),
    ).toEqual({ protocol: 'anthropic', model: 'claude-a', tokens: tokens(1, 2) })
  })

  test.each([
    ['message_start without a message', { type: 'message_start' }],
    ['message_start whose message has no usage', { type: 'message_start', message: { model: 'claude' } }],
    ['message_start whose usage is an array', { type: 'message_start', message: { model: 'claude', usage: [1, 2] } }],
    ['message_delta without usage', { type: 'message_delta', delta: { stop_reason: 'end_turn' } }],
    ['a plain message whose usage is a number', { type: 'message', model: 'claude', usage: 7 }],
  ])('%s reports no usage', (_, value) => {
    expect(read(value)).toBeNull()
  })

  test('a model is kept from an event without usage once a later one carries it', () => {
    expect(read({ type: 'message_start', message: { model: 'claude-m' } }, { type: 'message_delta', usage: { output_tokens: 3 } })).toEqual({
      protocol: 'anthropic',
      model: 'claude-m',
      tokens: tokens(0, 3),
    })
  })
})

describe('OpenAI Responses and Chat Completions', () => {
  test.each(['response.completed', 'response.incomplete', 'response.failed'])('%s carries response.usage; input_tokens includes the cached ones', (type) => {
    expect(
      read({
        type,
        response: {
          object: 'response',
          model: 'gpt-5',
          usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 30 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 20 } },
        },
      }),
    ).toEqual({ protocol: 'openai', model: 'gpt-5', tokens: tokens(70, 50, 30, 0) })
  })

  test('a plain Responses body (object "response") reports its usage', () => {
    expect(read({ object: 'response', model: 'gpt-5-mini', usage: { input_tokens: 9, output_tokens: 4 } })).toEqual({
      protocol: 'openai',
      model: 'gpt-5-mini',
      tokens: tokens(9, 4),
    })
  })

  test('events of other types (response.created, deltas) are not read, not even for the model', () => {
    expect(
      read(
        { type: 'response.created', response: { object: 'response', model: 'gpt-5', usage: null } },
        { type: 'response.output_text.delta', delta: 'hi' },
        { type: 'response.completed', response: { usage: { input_tokens: 8, output_tokens: 2 } } },
      ),
    ).toEqual({ protocol: 'openai', model: null, tokens: tokens(8, 2) })
  })

  test('a response.completed without a model keeps the model named before', () => {
    expect(
      read(
        { type: 'response.completed', response: { model: 'gpt-a', usage: { input_tokens: 1, output_tokens: 1 } } },
        { type: 'response.completed', response: { usage: { input_tokens: 3, output_tokens: 4 } } },
      ),
    ).toEqual({ protocol: 'openai', model: 'gpt-a', tokens: tokens(3, 4) })
  })

  test('Chat Completions usage (prompt_tokens, completion_tokens, prompt_tokens_details) is read', () => {
    expect(read({ object: 'chat.completion', model: 'gpt-4o', usage: { prompt_tokens: 200, completion_tokens: 17, prompt_tokens_details: { cached_tokens: 150 } } })).toEqual({
      protocol: 'openai',
      model: 'gpt-4o',
      tokens: tokens(50, 17, 150, 0),
    })
  })

  test('a chat stream reports the usage of its last chunk, keeping the model', () => {
    expect(
      read(
        { object: 'chat.completion.chunk', model: 'gpt-4o', choices: [{ delta: { content: 'hi' } }], usage: null },
        { object: 'chat.completion.chunk', model: '', choices: [], usage: { prompt_tokens: 11, completion_tokens: 6 } },
      ),
    ).toEqual({ protocol: 'openai', model: 'gpt-4o', tokens: tokens(11, 6) })
  })

  test('cached tokens above the input count are capped at the input', () => {
    expect(read({ object: 'chat.completion', model: 'm', usage: { prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 25 }, completion_tokens: 1 } })).toEqual({
      protocol: 'openai',
      model: 'm',
      tokens: tokens(0, 1, 10, 0),
    })
  })

  test('input_tokens wins over prompt_tokens, and input_tokens_details over prompt_tokens_details', () => {
    expect(
      read({
        object: 'response',
        model: 'm',
        usage: {
          input_tokens: 40,
          prompt_tokens: 999,
          input_tokens_details: { cached_tokens: 10 },
          prompt_tokens_details: { cached_tokens: 30 },
          output_tokens: 5,
          completion_tokens: 777,
        },
      }),
    ).toEqual({ protocol: 'openai', model: 'm', tokens: tokens(30, 5, 10, 0) })
  })

  test('an empty usage still reports zero tokens', () => {
    expect(read({ object: 'chat.completion', usage: {} })).toEqual({ protocol: 'openai', model: null, tokens: tokens(0, 0) })
  })

  test.each([
    ['response.completed without a response', { type: 'response.completed' }],
    ['a response without usage', { object: 'response', model: 'gpt-5' }],
    ['a chat completion whose usage is a string', { object: 'chat.completion', model: 'gpt-4o', usage: '12' }],
    ['a different object kind', { object: 'embedding', model: 'x', usage: { prompt_tokens: 3 } }],
    ['a different event type', { type: 'response.created', response: { usage: { input_tokens: 3 } } }],
  ])('%s reports no usage', (_, value) => {
    expect(read(value)).toBeNull()
  })
})

describe('Gemini', () => {
  test('the last usageMetadata counts; cached prompt tokens and thoughts are split out', () => {
    expect(
      read(
        { candidates: [{ content: { parts: [{ text: 'a' }] } }], usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 1 }, modelVersion: 'gemini-2.5-pro' },
        {
          candidates: [],
          usageMetadata: { promptTokenCount: 100, toolUsePromptTokenCount: 20, cachedContentTokenCount: 30, candidatesTokenCount: 40, thoughtsTokenCount: 7 },
          modelVersion: '',
        },
      ),
    ).toEqual({ protocol: 'gemini', model: 'gemini-2.5-pro', tokens: tokens(90, 47, 30, 0) })
  })

  test('cached tokens above the prompt are capped at the prompt', () => {
    expect(read({ usageMetadata: { promptTokenCount: 5, cachedContentTokenCount: 9 } })).toEqual({ protocol: 'gemini', model: null, tokens: tokens(0, 0, 5, 0) })
  })

  test.each([
    ['usageMetadata null', { usageMetadata: null, modelVersion: 'g' }],
    ['usageMetadata an array', { usageMetadata: [{ promptTokenCount: 1 }], modelVersion: 'g' }],
  ])('%s reports no usage', (_, value) => {
    expect(read(value)).toBeNull()
  })
})

describe('Counts and values', () => {
  test.each([
    ['a negative count', -5, 0],
    ['zero', 0, 0],
    ['a fraction', 7.9, 7],
    ['a count under one', 0.5, 0],
    ['infinity', Number.POSITIVE_INFINITY, 0],
    ['NaN', Number.NaN, 0],
    ['a string of digits', '12', 0],
    ['one', 1, 1],
  ])('%s reads as its floor when positive and finite, else zero', (_, value, expected) => {
    expect(read({ object: 'chat.completion', usage: { prompt_tokens: 100, completion_tokens: value } })?.tokens.output).toBe(expected)
  })

  test('an array of events is read as each event in turn', () => {
    expect(read([{ type: 'message_start', message: { model: 'claude', usage: { input_tokens: 3 } } }, [{ type: 'message_delta', usage: { output_tokens: 4 } }]])).toEqual({
      protocol: 'anthropic',
      model: 'claude',
      tokens: tokens(3, 4),
    })
  })

  test.each([
    ['null', null],
    ['a number', 42],
    ['a string', 'usage'],
    ['an empty object', {}],
    ['an empty array', []],
  ])('%s reports no usage', (_, value) => {
    expect(read(value)).toBeNull()
  })

  test('a later protocol replaces the earlier tokens and protocol', () => {
    expect(read({ type: 'message', model: 'claude', usage: { input_tokens: 1 } }, { usageMetadata: { promptTokenCount: 2 } })).toEqual({
      protocol: 'gemini',
      model: 'claude',
      tokens: tokens(2, 0),
    })
  })

  test('a non-string model is ignored', () => {
    expect(read({ type: 'message', model: 5, usage: { input_tokens: 1 } })?.model).toBeNull()
  })
})

describe('EventStreamSplitter', () => {
  test('hands each JSON data payload over, skipping [DONE], comments, events and empty data', () => {
    expect(stream(['event: message_start\n', 'data: {"a":1}\n\n', ': keep-alive\n', 'data:\n', 'data:   \n', 'data: [DONE]\n', 'data:{"b":2}\n'])).toEqual([{ a: 1 }, { b: 2 }])
  })

  test('a payload cut anywhere between chunks is joined before it is parsed', () => {
    const body = 'data: {"type":"message_delta","usage":{"output_tokens":42}}\n\ndata: [1,2]\n'
    for (let cut = 0; cut <= body.length; cut++) {
      expect(stream([body.slice(0, cut), body.slice(cut)])).toEqual([{ type: 'message_delta', usage: { output_tokens: 42 } }, [1, 2]])
    }
  })

  test('CRLF line endings are handled', () => {
    expect(stream(['data: {"a":1}\r\n\r\ndata: "x"\r\n'])).toEqual([{ a: 1 }, 'x'])
  })

  test('a line is not handed over until its newline arrives', () => {
    expect(stream(['data: {"a":1}'], false)).toEqual([])
  })

  test('the last line without its newline counts at the end, once', () => {
    const payloads: unknown[] = []
    const splitter = new EventStreamSplitter((value) => payloads.push(value))
    splitter.push('data: {"a":1}\ndata: {"b":2}')
    splitter.end()
    splitter.end()
    expect(payloads).toEqual([{ a: 1 }, { b: 2 }])
  })

  test('a malformed payload is skipped and later ones still arrive', () => {
    expect(stream(['data: {"a":\n', 'data: not json\n', 'data: {"c":3}\n'])).toEqual([{ c: 3 }])
  })

  test('only lines that start with "data:" are read, even when the rest past five characters would parse', () => {
    expect(stream([' data: {"a":1}\n', 'xdata: {"b":2}\n', 'id: 12345\n', ':pad 7\n', 'da\rta: 8\n'])).toEqual([])
  })

  test('a payload is trimmed of any whitespace before it is parsed, not only JSON whitespace', () => {
    expect(stream(['data:\u00a0{"a":1}\u00a0\n', 'data:\f[2]\n'])).toEqual([{ a: 1 }, [2]])
  })

  test('after end the splitter starts afresh for a later stream', () => {
    const payloads: unknown[] = []
    const splitter = new EventStreamSplitter((value) => payloads.push(value))
    splitter.push('data: 1')
    splitter.end()
    splitter.push('data: 2\n')
    expect(payloads).toEqual([1, 2])
  })

  test('a whole Anthropic stream, read through the splitter, gives its usage', () => {
    const sse = [
      'event: message_start\n',
      'data: {"type":"message_start","message":{"model":"claude-opus","usage":{"input_tokens":25,"cache_read_input_tokens":100,"output_tokens":1}}}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":15}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ]
    expect(read(...stream(sse))).toEqual({ protocol: 'anthropic', model: 'claude-opus', tokens: tokens(25, 15, 100, 0) })
  })
})
