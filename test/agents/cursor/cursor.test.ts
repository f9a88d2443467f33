import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CursorAgent } from '../../../src/agents/cursor/agent.ts'
import { nodeTooOld } from '../../../src/agents/cursor/classify.ts'
import { sendJson, type ProtocolHandler } from '../../../src/scripted-model/server.ts'
import { cursorAgentBackend } from '../../../src/scripted-model/cursor.ts'
import { startScriptedModel, type ScriptedModelServer } from '../../../src/scripted-model/index.ts'
import type { FaultRuleInput } from '../../../src/scripted-model/faults.ts'
import { SpecError } from '../../../src/errors.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'
import { GREET_AFTER, GREET_TASK, makeRunFolders, processesOf, runRequest, taskWithSolution, type RunFolders } from '../../helpers/scripted-session.ts'
import { failureOf } from '../../helpers/harness-failure.ts'

// The real @cursor/sdk 1.0.31 (pinned: 1.0.32 names platform packages the registry does not have, which breaks `npm ci`), in the adapter's runner process, against the scripted model server on 127.0.0.1
// (CURSOR_BACKEND_URL), which speaks Cursor's agent backend (src/scripted-model/cursor.ts: the
// Connect-RPC calls agent.v1.AgentService/RunSSE and aiserver.v1.BidiService/BidiAppend, with the
// SDK's own protobuf types). In Cursor the model runs on the backend and the tools in the SDK: the
// SDK's local executor really lists, reads and writes the workspace here.
//
// @cursor/sdk declares node >= 22.13, but its native tree-sitter binding segfaults as soon as a
// local session starts on Node 20 and on 22.13.0 too (a test below shows it there); 22.23.5 and
// 24.22.3 run it. So the whole session runs on Node >= 22.23 (CI's pass on Node 24), and the
// failures that happen before a session starts (no key, 401, 500, a dropped connection, a stall)
// run on every Node.

const KEY = 'CURSOR_API_KEY'
const MODEL = 'gpt-5'

let folders: RunFolders
let server: ScriptedModelServer | undefined

beforeEach(async () => {
  folders = await makeRunFolders('cursor-test')
})
afterEach(async () => {
  await server?.close()
  server = undefined
  await folders.cleanup()
})

async function start(faults: FaultRuleInput[] = []): Promise<ScriptedModelServer> {
  server = await startScriptedModel({ task: GREET_TASK, seed: 1, workspace: folders.workspace, faults, policy: { wrongEditRate: 0 } })
  return server
}

const tooOld = nodeTooOld(process.versions.node)
const skipNote = tooOld ? ` (skipped: this is Node ${process.versions.node}, and @cursor/sdk's local session needs Node >= 22.23)` : ''

function agent(url: string, options: Record<string, unknown> = {}): CursorAgent {
  return new CursorAgent(AgentSpecSchema.parse({ kind: 'cursor', model: MODEL, options: { backendUrl: url, killGraceSeconds: 0.5, ...options } }))
}

const withKey = { [KEY]: 'test-key' }

describe('cursor through the real SDK, against 127.0.0.1', () => {
  it('no key: fails fast as auth, without starting the SDK', async () => {
    const scripted = await start()
    const failure = await failureOf(agent(scripted.url).run(runRequest(folders)))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(/CURSOR_API_KEY is not set/)
    expect(scripted.requests).toHaveLength(0)
  })

  it('HTTP 401 from the key exchange and the model list is an auth failure, not retried, and the transcript holds what the SDK said', async () => {
    const scripted = await start([{ fault: { kind: 'status', status: 401, message: 'Invalid API key' } }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(folders, { env: withKey })))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(/AuthenticationError/)
    expect(scripted.requests[0]).toMatchObject({ pathname: '/auth/exchange_user_api_key', fault: 'status' })
    const transcript = await readFile(folders.transcriptPath, 'utf8')
    expect(transcript).toMatch(/"tag":"error".*AuthenticationError/)
  })

  it.each([
    ['HTTP 500', { kind: 'status', status: 500 } as const],
    ['HTTP 529 overloaded', { kind: 'status', status: 529 } as const],
    ['a dropped connection', { kind: 'drop' } as const],
  ])('%s from the backend is an API failure, retried', async (_name, fault) => {
    const scripted = await start([{ fault }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(folders, { env: withKey })))
    expect(failure.reason).toBe('api-error')
    expect(failure.retryable).toBe(true)
    expect(failure.message).toMatch(/^cursor: (NetworkError|ConnectError)/)
  })

  it('a stall past the timeout is a harness failure, and no process of the run is left alive', async () => {
    const scripted = await start([{ fault: { kind: 'stall' } }])
    const failure = await failureOf(agent(scripted.url).run(runRequest(folders, { timeoutMs: 2500, env: withKey })))
    expect(failure.reason).toBe('api-error')
    expect(failure.message).toMatch(/before the timeout \(the request stalled\)/)
    expect(processesOf(folders.root)).toEqual([])
  })

  it.runIf(nodeTooOld(process.versions.node))(
    `on Node ${process.versions.node} a local session crashes the SDK (SIGSEGV in its native tree-sitter): a crash naming the Node it needs, the harness unharmed${tooOld ? '' : " — SKIPPED: on Node >= 22.23 the SDK's local session runs instead of crashing"}`,
    async () => {
      const scripted = await start()
      const failure = await failureOf(agent(scripted.url).run(runRequest(folders, { env: withKey })))
      expect(failure.reason).toBe('crash')
      expect(failure.retryable).toBe(false)
      expect(failure.message).toMatch(/SIGSEGV.*@cursor\/sdk needs Node >= 22\.23/)
      // The SDK got as far as creating the agent: the key exchange and the model list were real.
      const transcript = await readFile(folders.transcriptPath)
      expect(transcript.toString()).toMatch(/"tag":"created"/)
      expect(scripted.requests.map((request) => request.pathname)).toEqual(expect.arrayContaining(['/auth/exchange_user_api_key', '/v1/models']))
      expect(processesOf(folders.root)).toEqual([])
    },
  )

  it.skipIf(tooOld)(
    `on Node >= 22.23 a whole session: the scripted model lists, reads and edits through the SDK's own tools, the file is fixed, and the run is priced from the tokens the server billed${skipNote}`,
    async () => {
      const scripted = await start()
      const result = await agent(scripted.url).run(runRequest(folders, { env: withKey, timeoutMs: 90_000 }))
      expect(result.stop).toBe('completed')
      expect(await readFile(`${folders.workspace}/src/greet.js`, 'utf8')).toBe(GREET_AFTER)
      const billed = scripted.usage
      expect(result.tokens).toEqual({ input: billed.inputTokens, output: billed.outputTokens, cacheRead: billed.cacheReadTokens, cacheWrite: billed.cacheWriteTokens })
      expect(result.costSource).toBe('priced')
      expect(result.costUsd).toBeGreaterThan(0)
      // The hash recorded with the run is the transcript file's, byte for byte.
      expect(result.transcriptSha256).toBe(
        createHash('sha256')
          .update(await readFile(folders.transcriptPath))
          .digest('hex'),
      )
      // Not metered: the SDK's backend speaks Cursor's protobuf, with no provider usage fields for a gateway to read.
      expect(result.metered).toBeNull()
      const transcript = (await readFile(folders.transcriptPath, 'utf8')).split('\n').filter((line) => line.startsWith('{'))
      const started = transcript
        .map((line) => JSON.parse(line) as { tag: string; obj: { type?: string; toolCall?: { type: string } } })
        .filter((event) => event.tag === 'delta' && event.obj.type === 'tool-call-started')
      const kinds = started.map((event) => event.obj.toolCall!.type)
      expect(kinds.at(-1)).toBe('edit')
      expect(kinds).toContain('read')
      expect(result.toolCalls).toBe(kinds.length)
      expect(result.toolCallsBeforeFirstEdit).toBe(kinds.indexOf('edit'))
      expect(result.turns).toBe(kinds.length + 1)
      expect(scripted.requests.map((request) => request.pathname)).toEqual(expect.arrayContaining(['/agent.v1.AgentService/RunSSE', '/aiserver.v1.BidiService/BidiAppend']))
      expect(processesOf(folders.root)).toEqual([])
    },
    120_000,
  )

  it.skipIf(tooOld)(
    `on Node >= 22.23 with options.scriptedModel: the run gets its own scripted backend, which learns the task's fix; no key needed${skipNote}`,
    async () => {
      const request = runRequest(folders, { task: await taskWithSolution(folders), timeoutMs: 90_000 })
      const result = await new CursorAgent(AgentSpecSchema.parse({ kind: 'cursor', model: MODEL, options: { scriptedModel: { wrongEditRate: 0 }, killGraceSeconds: 0.5 } })).run(
        request,
      )
      expect(result.stop).toBe('completed')
      expect(await readFile(`${folders.workspace}/src/greet.js`, 'utf8')).toBe(GREET_AFTER)
      expect(result.tokens?.output).toBeGreaterThan(0)
      expect(processesOf(folders.root)).toEqual([])
    },
    120_000,
  )

  it.skipIf(tooOld)(
    `on Node >= 22.23 a backend without Cursor's agent loop (RunSSE answered 404) ends the run in the SDK's own error, the harness unharmed${skipNote}`,
    async () => {
      const noAgentLoop: ProtocolHandler = {
        ...cursorAgentBackend,
        name: 'cursor-without-agent-loop',
        handle(exchange, context) {
          if (exchange.pathname !== '/agent.v1.AgentService/RunSSE') return cursorAgentBackend.handle(exchange, context)
          sendJson(exchange.response, 404, { code: 'unimplemented', message: 'no Cursor agent loop here' })
        },
      }
      server = await startScriptedModel({ task: GREET_TASK, seed: 1, workspace: folders.workspace, handlers: [noAgentLoop] })
      const failure = await failureOf(agent(server.url).run(runRequest(folders, { env: withKey, timeoutMs: 60_000 })))
      expect(failure.reason).toBe('agent-error')
      expect(failure.message).toMatch(/^cursor: .*(HTTP \d{3}|unimplemented)/)
      expect(failure.message).not.toMatch(/SIGSEGV/)
      const transcript = await readFile(folders.transcriptPath, 'utf8')
      expect(transcript).toMatch(/"tag":"sent"/)
      expect(server.requests.map((request) => request.pathname)).toContain('/agent.v1.AgentService/RunSSE')
      expect(processesOf(folders.root)).toEqual([])
    },
    90_000,
  )
})

describe('the cursor spec', () => {
  it('takes options.scriptedModel like the other CLIs (true: the defaults)', () => {
    expect(agent('http://127.0.0.1:9', { scriptedModel: true }).options.scriptedModel).toMatchObject({ faults: [] })
    expect(agent('http://127.0.0.1:9').options.scriptedModel).toBeUndefined()
  })

  it('refuses, before any run, a Node older than the SDK needs', async () => {
    const version = agent('http://127.0.0.1:9').version({ PATH: process.env.PATH ?? '' })
    if (nodeTooOld(process.versions.node)) await expect(version).rejects.toThrow(SpecError)
    else await expect(version).resolves.toMatch(/^@cursor\/sdk 1\.0\.31; genai-prices /)
  })

  it('needs a model the price table knows, or priceModel', () => {
    expect(() => new CursorAgent(AgentSpecSchema.parse({ kind: 'cursor' }))).toThrow(/needs agent\.model/)
    expect(() => new CursorAgent(AgentSpecSchema.parse({ kind: 'cursor', model: 'composer-1' }))).toThrow(/no price.*priceModel/)
    expect(
      () => new CursorAgent(AgentSpecSchema.parse({ kind: 'cursor', model: 'composer-1', options: { priceModel: 'claude-sonnet-4-5', priceProvider: 'anthropic' } })),
    ).not.toThrow()
  })
})
