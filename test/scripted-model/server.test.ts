import { describe, expect, test } from 'vitest'
import { startScriptedModel } from '../../src/scripted-model/index.ts'
import type { FaultRuleInput } from '../../src/scripted-model/faults.ts'
import { GreetingModel, greetingTask } from './greeting-model.ts'

// The server over real HTTP on 127.0.0.1, spoken to with fetch the way an
// Anthropic SDK would. (Whole sessions with the real CLI are in
// test/agents/claude-code/.)

const task = greetingTask
const model = new GreetingModel()
const start = (faults: FaultRuleInput[] = []) => model.start(faults)

const request = (extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 1000,
  system: [{ type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } }],
  tools: [{ name: 'Bash' }, { name: 'Read' }, { name: 'Edit' }, { name: 'Write' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: task.prompt, cache_control: { type: 'ephemeral' } }] }],
  ...extra,
})

async function post(path: string, body: unknown) {
  return fetch(`${model.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify(body) })
}

/** Parses an SSE body into its events. */
function sseEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .trim()
    .split('\n\n')
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1]!
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)![1]!) as Record<string, unknown>
      return { event, data }
    })
}

describe('Anthropic Messages API', () => {
  test('non-streaming: a tool call as Claude Code expects it, usage with prompt caching', async () => {
    await start()
    const response = await post('/v1/messages?beta=true', request())
    expect(response.status).toBe(200)
    const message = (await response.json()) as {
      content: { type: string; name?: string; input?: Record<string, string> }[]
      stop_reason: string
      usage: Record<string, number>
      model: string
    }
    expect(message.stop_reason).toBe('tool_use')
    expect(message.model).toBe('claude-sonnet-4-5')
    const call = message.content.find((block) => block.type === 'tool_use')!
    expect(call.name).toBe('Bash') // first, it lists the files
    expect(call.input!.command).toContain('find')
    expect(message.usage.cache_creation_input_tokens).toBeGreaterThan(0)
    expect(message.usage.cache_read_input_tokens).toBe(0)
    // The same conversation again: its prefix is now a cache read.
    const again = (await (await post('/v1/messages', request())).json()) as { usage: Record<string, number> }
    expect(again.usage.cache_read_input_tokens).toBe(message.usage.cache_creation_input_tokens)
  })

  test('streaming: SSE events that rebuild the same message', async () => {
    await start()
    const response = await post('/v1/messages', request({ stream: true }))
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const events = sseEvents(await response.text())
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    const json = events.find((event) => (event.data.delta as { type?: string } | undefined)?.type === 'input_json_delta')!
    expect(JSON.parse((json.data.delta as { partial_json: string }).partial_json)).toHaveProperty('command')
    expect(events.at(-2)!.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: expect.any(Number) } })
  })

  test('later steps: Read with an absolute path, then Edit with a unique old_string, then text only', async () => {
    await start()
    const messages: unknown[] = [{ role: 'user', content: task.prompt }]
    const calls: { name: string; input: Record<string, unknown> }[] = []
    for (let step = 0; step < 20; step++) {
      const reply = (await (await post('/v1/messages', request({ messages }))).json()) as {
        content: { type: string; id?: string; name?: string; input?: Record<string, unknown> }[]
        stop_reason: string
      }
      messages.push({ role: 'assistant', content: reply.content })
      if (reply.stop_reason === 'end_turn') break
      const call = reply.content.find((block) => block.type === 'tool_use')!
      calls.push({ name: call.name!, input: call.input! })
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'ok' }] })
    }
    expect(calls.at(-2)).toEqual({ name: 'Read', input: { file_path: '/srv/ws/src/greet.js' } })
    expect(calls.at(-1)).toEqual({
      name: 'Edit',
      input: { file_path: '/srv/ws/src/greet.js', old_string: 'return `Hello, ${name}`', new_string: 'return `Hello, ${name}!`', replace_all: false },
    })
  })

  test('usage does not depend on where the harness made the workspace and HOME (a sharded run bills what an unsharded one does)', async () => {
    const usageIn = async (workspace: string, home: string) => {
      const server = await startScriptedModel({ task, seed: 1, workspace, home, policy: { wrongEditRate: 0 } })
      try {
        const system = [{ type: 'text', text: `You are an agent.\nPrimary working directory: ${workspace}\nMemory: ${home}/.claude/memory`, cache_control: { type: 'ephemeral' } }]
        const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request({ system })) })
        return ((await response.json()) as { usage: Record<string, number> }).usage
      } finally {
        await server.close()
      }
    }
    const near = await usageIn('/w/001-x-aaaaaa/ws', '/w/run-bbbbbb/home')
    const far = await usageIn('/srv/a/much/longer/workspace/root/001-x-cccccc/ws', '/srv/a/much/longer/workspace/root/run-dddddd/home')
    expect(far).toEqual(near)
  })

  test('count_tokens answers in proportion to the prompt', async () => {
    await start()
    const small = (await (await post('/v1/messages/count_tokens', request())).json()) as { input_tokens: number }
    const big = (await (await post('/v1/messages/count_tokens', request({ messages: [{ role: 'user', content: 'x'.repeat(40_000) }] }))).json()) as { input_tokens: number }
    expect(small.input_tokens).toBeGreaterThan(0)
    expect(big.input_tokens - small.input_tokens).toBeGreaterThanOrEqual(9_000)
  })

  test('a side request without tools (a session title with a JSON schema) gets JSON text', async () => {
    await start()
    const reply = (await (
      await post('/v1/messages', {
        model: 'm',
        messages: [{ role: 'user', content: 'title?' }],
        output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } } } } },
      })
    ).json()) as { content: { type: string; text: string }[]; stop_reason: string }
    expect(reply.stop_reason).toBe('end_turn')
    expect(JSON.parse(reply.content[0]!.text)).toEqual({ title: expect.any(String) })
  })

  test('bad requests: not JSON is 400, no messages is 400, unknown routes 404, the health check 200', async () => {
    await start()
    const notJson = await fetch(`${model.server.url}/v1/messages`, { method: 'POST', body: '{nope' })
    expect(notJson.status).toBe(400)
    expect(((await notJson.json()) as { type: string }).type).toBe('error')
    expect((await post('/v1/messages', { model: 'm' })).status).toBe(400)
    expect((await post('/v1/nothing', {})).status).toBe(404)
    expect((await fetch(`${model.server.url}/`, { method: 'HEAD' })).status).toBe(200)
  })
})

describe('failure injection', () => {
  test.each([
    [401, 'authentication_error'],
    [500, 'api_error'],
    [529, 'overloaded_error'],
  ])("HTTP %i with the API's own error body", async (status, type) => {
    await start([{ fault: { kind: 'status', status } }])
    const response = await post('/v1/messages', request())
    expect(response.status).toBe(status)
    expect(await response.json()).toMatchObject({ type: 'error', error: { type } })
    // Token counting is not a model call: it still works.
    expect((await post('/v1/messages/count_tokens', request())).status).toBe(200)
  })

  test('from/count pick which model calls fail', async () => {
    await start([{ fault: { kind: 'status', status: 529 }, from: 1, count: 2 }])
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await post('/v1/messages', request())).status)
    expect(statuses).toEqual([200, 529, 529, 200])
    expect(model.server.requests.filter((served) => served.route === 'model').map((served) => served.fault)).toEqual([null, 'status', 'status', null])
  })

  test('a dropped connection: the client sees the socket close with no answer', async () => {
    await start([{ fault: { kind: 'drop' } }])
    await expect(post('/v1/messages', request())).rejects.toThrow()
  })

  test('a stall: no answer until the server closes', async () => {
    await start([{ fault: { kind: 'stall' } }])
    const pending = post('/v1/messages', request()).then(
      () => 'answered',
      () => 'closed',
    )
    const raced = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 500))])
    expect(raced).toBe('still waiting')
    await model.close()
    expect(await pending).toBe('closed')
  })

  test('a fault rule is validated', async () => {
    await expect(startScriptedModel({ task, seed: 1, faults: [{ fault: { kind: 'status', status: 200 } }] })).rejects.toThrow(/status/)
  })
})
