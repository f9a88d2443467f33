import http from 'node:http'
import os from 'node:os'
import { Bench } from 'tinybench'
import { MeteringGateway } from '../../src/sandbox/index.ts'
import { startScriptedModel } from '../../src/scripted-model/index.ts'
import { anthropicMessages } from '../../src/scripted-model/anthropic.ts'
import type { ScriptedTask } from '../../src/scripted-model/types.ts'
import { benchRows, printBenchTable } from './table.ts'

/**
 * What the metering gateway adds to each model request: one scripted session
 * (the Anthropic Messages API, streamed as Claude Code asks for it, every turn
 * until the model ends it) played against the scripted model server directly
 * (baseline), then the same request bodies through a metering gateway in front
 * of it, on kept-alive connections as the CLIs use them. The difference of the
 * medians over the session's request count is the gateway's cost per request.
 * Target: under 2 ms. The last line says whether it is met.
 */

const TARGET_MS = 2

const BEFORE = 'export function greet(name) {\n  return "Hello " + name\n}\n'
const TASK: ScriptedTask = {
  id: 'bench-greet',
  prompt: 'greet() should say Hello, with a comma',
  files: ['README.md', 'src/greet.js', 'src/util.js'],
  edits: [{ path: 'src/greet.js', before: BEFORE, after: BEFORE.replace('Hello ', 'Hello, ') }],
}

/** Claude Code's tools as the scripted model reads them, and a system prompt about the size of the CLI's (some 12 kB), so each request's body is as large as a real one's. */
const TOOLS = ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep'].map((name) => ({
  name,
  description: `The ${name} tool. ${'Use it as the instructions say. '.repeat(30)}`,
  input_schema: { type: 'object', properties: { command: { type: 'string' }, file_path: { type: 'string' } } },
}))
const SYSTEM = `You are a coding agent working in a repository. ${'Follow the instructions carefully and keep changes small. '.repeat(200)}`

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

/** POSTs one streamed Messages request and returns the SSE body. */
function post(base: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${base}/v1/messages`)
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': 'bench', 'anthropic-version': '2023-06-01' } },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
        response.once('error', reject)
      },
    )
    request.once('error', reject)
    request.end(body)
  })
}

interface ToolUse {
  id: string
  name: string
  json: string
}

/** The tool calls of a streamed answer, and whether the model stopped to use them. */
function readAnswer(sse: string): { tools: ToolUse[]; text: string; toolUse: boolean } {
  const tools: ToolUse[] = []
  let text = ''
  let toolUse = false
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue
    const event = JSON.parse(line.slice(6)) as {
      type?: string
      content_block?: { type?: string; id?: string; name?: string }
      delta?: { type?: string; partial_json?: string; text?: string; stop_reason?: string }
    }
    if (event.type === 'content_block_start' && event.content_block?.type === 'tool_use')
      tools.push({ id: event.content_block.id ?? '', name: event.content_block.name ?? '', json: '' })
    if (event.type === 'content_block_delta' && event.delta?.type === 'input_json_delta') tools.at(-1)!.json += event.delta.partial_json ?? ''
    if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') text += event.delta.text ?? ''
    if (event.type === 'message_delta' && event.delta?.stop_reason === 'tool_use') toolUse = true
  }
  return { tools, text, toolUse }
}

/** Plays one session against the server directly and returns its request bodies, in order. */
async function recordSession(base: string): Promise<string[]> {
  const messages: unknown[] = [{ role: 'user', content: TASK.prompt }]
  const bodies: string[] = []
  for (let turn = 0; turn < 40; turn++) {
    const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 4096, stream: true, system: SYSTEM, tools: TOOLS, messages })
    bodies.push(body)
    const answer = readAnswer(await post(base, body))
    if (!answer.toolUse || answer.tools.length === 0) return bodies
    messages.push({ role: 'assistant', content: answer.tools.map((tool) => ({ type: 'tool_use', id: tool.id, name: tool.name, input: JSON.parse(tool.json || '{}') })) })
    messages.push({ role: 'user', content: answer.tools.map((tool) => ({ type: 'tool_result', tool_use_id: tool.id, content: 'ok' })) })
  }
  throw new Error('the scripted session did not end within 40 turns')
}

export default async function run(): Promise<void> {
  const server = await startScriptedModel({ task: TASK, seed: 1, workspace: '/workspace', handlers: [anthropicMessages], faults: [] })
  const gateway = await MeteringGateway.start({ upstream: server.url })
  try {
    const bodies = await recordSession(server.url)
    const session = (base: string) => async () => {
      for (const body of bodies) await post(base, body)
    }
    const bench = new Bench({ iterations: 30, warmupIterations: 3 })
    bench.add(`a scripted session of ${bodies.length} requests, direct (baseline)`, session(server.url))
    bench.add('the same session through the metering gateway', session(gateway.url))
    await bench.run()
    const rows = benchRows(bench)
    printBenchTable(`the metering gateway (load ${os.loadavg()[0]!.toFixed(1)})`, rows)
    const metered = gateway.exchanges.filter((exchange) => exchange.usage !== null).length
    if (metered !== gateway.exchanges.length) throw new Error(`the gateway read usage from ${metered} of ${gateway.exchanges.length} responses`)
    const perRequest = (rows[1]!.p50Ms - rows[0]!.p50Ms) / bodies.length
    console.log(`gateway overhead per model request ${perRequest.toFixed(3)} ms, median over the session (target < ${TARGET_MS} ms): ${perRequest < TARGET_MS ? 'met' : 'NOT met'}`)
  } finally {
    agent.destroy()
    await gateway.close()
    await server.close()
  }
}
