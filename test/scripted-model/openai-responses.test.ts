import { describe, expect, it } from 'vitest'
import type { FaultRuleInput } from '../../src/scripted-model/faults.ts'
import { codexPatch, codexToolCall, toConversation } from '../../src/scripted-model/openai-responses.ts'
import { GreetingModel, greetingTask } from './greeting-model.ts'

// The OpenAI Responses protocol over real HTTP on 127.0.0.1, spoken to with fetch the way Codex
// does. (Whole sessions with the real Codex CLI are in test/agents/codex/codex.test.ts.)

const task = greetingTask
const model = new GreetingModel()
const start = (faults: FaultRuleInput[] = []) => model.start(faults)

const tools = [
  { type: 'function', name: 'exec_command' },
  { type: 'custom', name: 'apply_patch' },
]
const opening = [
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: task.prompt }] },
]
const body = (input: unknown[], extra: Record<string, unknown> = {}) => ({ model: 'gpt-5.5', stream: false, tools, input, prompt_cache_key: 'thread-1', ...extra })

async function post(body: unknown, path = '/v1/responses') {
  return fetch(`${model.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify(body) })
}

interface ResponseJson {
  model: string
  output: { type: string; name?: string; arguments?: string; input?: string; call_id?: string; content?: { text: string }[] }[]
  usage: { input_tokens: number; input_tokens_details: { cached_tokens: number }; output_tokens: number; output_tokens_details: { reasoning_tokens: number }; total_tokens: number }
}

describe('the OpenAI Responses protocol', () => {
  it('answers the first request with text and an exec_command call, and reports usage', async () => {
    await start()
    const response = await post(body(opening))
    expect(response.status).toBe(200)
    const json = (await response.json()) as ResponseJson
    expect(json.model).toBe('gpt-5.5')
    const call = json.output.find((item) => item.type === 'function_call')!
    expect(call.name).toBe('exec_command')
    expect(JSON.parse(call.arguments!).cmd).toMatch(/^find '\.'/)
    expect(json.usage.input_tokens).toBeGreaterThan(0)
    expect(json.usage.input_tokens_details.cached_tokens).toBe(0)
    expect(json.usage.total_tokens).toBe(json.usage.input_tokens + json.usage.output_tokens)
    expect(json.usage.output_tokens).toBeGreaterThan(json.usage.output_tokens_details.reasoning_tokens)
  })

  it('reads the conversation back: the next request is served the next step, with the earlier prefix cached', async () => {
    await start()
    const first = (await (await post(body(opening))).json()) as ResponseJson
    const call = first.output.find((item) => item.type === 'function_call')!
    const second = (await (
      await post(body([...opening, ...first.output, { type: 'function_call_output', call_id: call.call_id, output: './src/greet.js\n./src/other.js' }]))
    ).json()) as ResponseJson
    expect(JSON.parse(second.output.find((item) => item.type === 'function_call')!.arguments!).cmd).toMatch(/^grep -rn/)
    expect(second.usage.input_tokens_details.cached_tokens).toBeGreaterThan(0)
    expect(model.server.usage.cacheReadTokens).toBe(second.usage.input_tokens_details.cached_tokens)
  })

  it('streams Server-Sent Events ending in response.completed, as Codex reads them', async () => {
    await start()
    const text = await (await post(body(opening, { stream: true }))).text()
    const events = [...text.matchAll(/^event: (\S+)$/gm)].map((match) => match[1])
    expect(events[0]).toBe('response.created')
    expect(events).toContain('response.output_item.done')
    expect(events.at(-1)).toBe('response.completed')
    const completed = JSON.parse(
      text
        .trim()
        .split('\n')
        .at(-1)!
        .replace(/^data: /, ''),
    ) as { response: ResponseJson }
    expect(completed.response.usage.input_tokens).toBeGreaterThan(0)
  })

  it('serves /responses without the /v1 prefix too, and answers a request without tools with text only', async () => {
    await start()
    const json = (await (await post(body(opening, { tools: [] }), '/responses')).json()) as ResponseJson
    expect(json.output.map((item) => item.type)).toEqual(['message'])
  })

  it('fails as OpenAI does: a 401 with an error object, and a 400 without input', async () => {
    await start([{ fault: { kind: 'status', status: 401 }, count: 1 }])
    const unauthorized = await post(body(opening))
    expect(unauthorized.status).toBe(401)
    expect(await unauthorized.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } })
    const bad = await post({ model: 'gpt-5.5' })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/input/)
  })
})

describe('the mapping to Codex', () => {
  it('turns function and custom tool calls and their outputs into the conversation', () => {
    const conversation = toConversation({
      instructions: 'base',
      tools,
      input: [
        ...opening,
        { type: 'reasoning' },
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 0\nOutput:\na' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'c2', output: 'error: no match' },
      ],
    })
    expect(conversation.system).toBe('base\nYou are Codex.')
    expect(conversation.kind).toBe('agent')
    expect(conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])
    expect(conversation.messages[1]!.parts[0]).toEqual({ type: 'tool-call', id: 'c1', name: 'exec_command', input: { cmd: 'ls' } })
    expect(conversation.messages[2]!.parts[0]).toMatchObject({ type: 'tool-result', callId: 'c1', isError: false })
    expect(conversation.messages[4]!.parts[0]).toMatchObject({ type: 'tool-result', callId: 'c2', isError: true })
  })

  it("writes edits, new files and deletions as Codex's apply_patch patches", () => {
    const edit = { kind: 'edit', path: 'src/a.js', oldString: 'a\nb', newString: 'a\nc', before: '', after: '', wrong: false } as const
    expect(codexPatch(edit)).toBe('*** Begin Patch\n*** Update File: src/a.js\n@@\n-a\n-b\n+a\n+c\n*** End Patch\n')
    expect(codexPatch({ kind: 'write', path: 'new.txt', content: 'x\ny\n', wrong: false })).toBe('*** Begin Patch\n*** Add File: new.txt\n+x\n+y\n*** End Patch\n')
    expect(codexPatch({ kind: 'delete', path: 'old.txt' })).toBe('*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n')
    expect(codexToolCall(edit)).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch' })
    expect(codexToolCall({ kind: 'read', path: "it's.js" })).toEqual({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: "cat -n 'it'\\''s.js'" }) })
    expect(codexToolCall({ kind: 'finish' })).toBeNull()
    // Codex offers apply_patch only for models in its catalog; otherwise the patch goes through the shell.
    const viaShell = codexToolCall(edit, ['exec_command'])!
    expect(viaShell.type).toBe('function_call')
    expect(JSON.parse((viaShell as { arguments: string }).arguments).cmd).toBe(`apply_patch <<'TASK_OUTCOME_PATCH'\n${codexPatch(edit)}TASK_OUTCOME_PATCH`)
  })
})
