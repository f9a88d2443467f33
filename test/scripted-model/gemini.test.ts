import { describe, expect, it } from 'vitest'
import type { FaultRuleInput } from '../../src/scripted-model/faults.ts'
import { geminiToolCall, toConversation, valueFor } from '../../src/scripted-model/gemini.ts'
import { GreetingModel, greetingTask } from './greeting-model.ts'

// The Gemini API over real HTTP on 127.0.0.1, spoken to with fetch the way the Gemini CLI does.
// (Whole sessions with the real Gemini CLI are in test/agents/gemini/gemini.test.ts.)

const task = greetingTask
const model = new GreetingModel()
const start = (faults: FaultRuleInput[] = []) => model.start(faults)

const sessionContext = '<session_context>\nThis is the Gemini CLI.\n- **Directory Structure:**\n/srv/ws/\n└───src/\n    ├───greet.js\n    └───other.js\n</session_context>'
const tools = [{ functionDeclarations: ['list_directory', 'grep_search', 'read_file', 'replace', 'write_file', 'run_shell_command'].map((name) => ({ name })) }]
const opening = [{ role: 'user', parts: [{ text: sessionContext }, { text: task.prompt }] }]
const body = (contents: unknown[], extra: Record<string, unknown> = {}) => ({ contents, tools, systemInstruction: { parts: [{ text: 'You are an agent.' }] }, ...extra })

async function post(body: unknown, method = 'generateContent') {
  const query = method === 'streamGenerateContent' ? '?alt=sse' : ''
  return fetch(`${model.server.url}/v1beta/models/gemini-2.5-flash:${method}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
    body: JSON.stringify(body),
  })
}

interface GenerateJson {
  candidates: { content: { role: string; parts: { text?: string; functionCall?: { name: string; args: Record<string, unknown> } }[] }; finishReason: string }[]
  usageMetadata: { promptTokenCount: number; candidatesTokenCount: number; thoughtsTokenCount: number; cachedContentTokenCount?: number; totalTokenCount: number }
  modelVersion: string
}

describe('the Gemini API', () => {
  it("explores when only the CLI's own file listing names the file, and bills thinking apart from the output", async () => {
    await start()
    const json = (await (await post(body(opening))).json()) as GenerateJson
    const call = json.candidates[0]!.content.parts.find((part) => part.functionCall !== undefined)!.functionCall!
    expect(call).toEqual({ name: 'list_directory', args: { dir_path: '/srv/ws' } })
    const usage = json.usageMetadata
    expect(usage.thoughtsTokenCount).toBeGreaterThan(0)
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount + usage.candidatesTokenCount + usage.thoughtsTokenCount)
    expect(model.server.usage.outputTokens).toBe(usage.candidatesTokenCount + usage.thoughtsTokenCount)
    expect(json.modelVersion).toBe('gemini-2.5-flash')
  })

  it('goes straight to the file a context file names', async () => {
    await start()
    const hinted = [{ role: 'user', parts: [{ text: sessionContext }, { text: 'GEMINI.md: greetings live in src/greet.js' }, { text: task.prompt }] }]
    const json = (await (await post(body(hinted))).json()) as GenerateJson
    expect(json.candidates[0]!.content.parts.find((part) => part.functionCall)!.functionCall).toEqual({ name: 'read_file', args: { file_path: '/srv/ws/src/greet.js' } })
  })

  it('reads function calls and responses back, caching the prefix', async () => {
    await start()
    const first = (await (await post(body(opening))).json()) as GenerateJson
    const modelTurn = first.candidates[0]!.content
    const next = [...opening, modelTurn, { role: 'user', parts: [{ functionResponse: { name: 'list_directory', response: { output: 'src/' } } }] }]
    const second = (await (await post(body(next))).json()) as GenerateJson
    expect(second.candidates[0]!.content.parts.find((part) => part.functionCall)!.functionCall!.name).toBe('grep_search')
    expect(second.usageMetadata.cachedContentTokenCount).toBeGreaterThan(0)
  })

  it('streams one SSE chunk with the whole answer, and counts tokens', async () => {
    await start()
    const text = await (await post(body(opening), 'streamGenerateContent')).text()
    expect(text.startsWith('data: ')).toBe(true)
    const chunk = JSON.parse(text.slice('data: '.length)) as GenerateJson
    expect(chunk.candidates[0]!.finishReason).toBe('STOP')
    const counted = (await (await post({ contents: opening }, 'countTokens')).json()) as { totalTokens: number }
    expect(counted.totalTokens).toBeGreaterThan(0)
  })

  it("answers the CLI's JSON side requests with a value of the schema, letting the user speak next", async () => {
    await start()
    const schema = { type: 'object', properties: { reasoning: { type: 'string' }, next_speaker: { type: 'string', enum: ['user', 'model'] } } }
    const json = (await (await post({ contents: opening, generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } })).json()) as GenerateJson
    expect(JSON.parse(json.candidates[0]!.content.parts[0]!.text!)).toEqual({ reasoning: 'Scripted model session', next_speaker: 'user' })
  })

  it('fails as Google does: an error object with the status name', async () => {
    await start([{ fault: { kind: 'status', status: 429 } }])
    const response = await post(body(opening))
    expect(response.status).toBe(429)
    expect(await response.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } })
  })
})

describe('the mapping to the Gemini CLI', () => {
  it('leaves the session context out of what the policy reads, keeps everything else', () => {
    const conversation = toConversation({ contents: opening, tools, systemInstruction: { parts: [{ text: 'You are an agent.' }] } })
    expect(conversation.messages[0]!.parts).toEqual([{ type: 'text', text: task.prompt }])
    expect(conversation.system).toBe('You are an agent.')
    expect(conversation.kind).toBe('agent')
  })

  it('maps every action to a Gemini CLI tool', () => {
    const names = ['list_directory', 'grep_search', 'read_file', 'replace', 'write_file']
    expect(geminiToolCall({ kind: 'search', pattern: 'greet' }, names, '/w')).toEqual({ name: 'grep_search', args: { pattern: 'greet', dir_path: '/w' } })
    const edit = geminiToolCall({ kind: 'edit', path: 'a.js', oldString: 'x', newString: 'y', before: 'x', after: 'y', wrong: false }, names, '/w')
    expect(edit).toMatchObject({ name: 'replace', args: { file_path: '/w/a.js', old_string: 'x', new_string: 'y' } })
    expect(geminiToolCall({ kind: 'delete', path: 'a.js' }, names, '/w')).toMatchObject({ name: 'run_shell_command', args: { command: "rm -f -- 'a.js'" } })
    expect(geminiToolCall({ kind: 'list', dir: '.' }, [], undefined)).toMatchObject({ name: 'run_shell_command' })
  })

  it('builds values for OpenAPI-style schemas too', () => {
    expect(valueFor({ type: 'OBJECT', properties: { ok: { type: 'BOOLEAN' }, n: { type: 'INTEGER' }, list: { type: 'ARRAY' }, pick: { enum: ['a', 'b'] } } })).toEqual({
      ok: false,
      n: 0,
      list: [],
      pick: 'a',
    })
  })
})
