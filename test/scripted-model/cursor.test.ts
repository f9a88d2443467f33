import { afterEach, describe, expect, it } from 'vitest'
import { connectEnvelope, cursorAgentBackend, SCRIPTED_CURSOR_MODELS } from '../../src/scripted-model/cursor.ts'
import { cursorSchemas, type CursorMessage } from '../../src/scripted-model/cursor-schemas.ts'
import { startScriptedModel, type ScriptedModelServer } from '../../src/scripted-model/index.ts'
import type { ScriptedTask } from '../../src/scripted-model/types.ts'

// Cursor's agent backend over real HTTP on 127.0.0.1, spoken to the way @cursor/sdk 1.0.31 does
// (RunSSE + BidiAppend, Connect-RPC, the SDK's own protobuf types), with this test playing the
// SDK's side: it answers each exec by hand. Whole sessions with the real SDK, whose local executor
// really lists, reads and writes the workspace, are in test/agents/cursor/cursor.test.ts.

const WS = '/srv/ws'
const task: ScriptedTask = {
  id: '001-x',
  prompt: 'The greeting lacks its exclamation mark.',
  files: ['src/greet.js', 'src/other.js'],
  edits: [{ path: 'src/greet.js', before: 'return `Hello, ${name}`\n', after: 'return `Hello, ${name}!`\n' }],
}

const schemas = cursorSchemas()
const T = (name: string) => schemas.type(name)
type Json = Record<string, unknown>

let server: ScriptedModelServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(workspace = WS): Promise<ScriptedModelServer> {
  server = await startScriptedModel({ task, seed: 1, workspace, policy: { wrongEditRate: 0 } })
  return server
}

/** The SDK's side of one run: the RunSSE stream it reads, and the numbered appends it sends. */
class SdkSide {
  readonly #url: string
  readonly #requestId: string
  #seqno = 0n
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  #buffer = Buffer.alloc(0)

  constructor(url: string, requestId: string) {
    this.#url = url
    this.#requestId = requestId
  }

  async open(): Promise<Response> {
    const body = connectEnvelope(new (T('aiserver.v1.BidiRequestId'))({ requestId: this.#requestId }).toBinary())
    const response = await fetch(`${this.#url}/agent.v1.AgentService/RunSSE`, {
      method: 'POST',
      headers: { 'content-type': 'application/connect+proto', 'connect-protocol-version': '1' },
      body,
    })
    this.#reader = response.body!.getReader()
    return response
  }

  /** The append with the next number, or with `seqno` (to send out of order). */
  async append(message: Json, seqno = this.#seqno++): Promise<number> {
    const data = new (T('agent.v1.AgentClientMessage'))(message).toBinary()
    const request = new (T('aiserver.v1.BidiAppendRequest'))({ requestId: { requestId: this.#requestId }, appendSeqno: seqno, data: Buffer.from(data).toString('hex') })
    const response = await fetch(`${this.#url}/aiserver.v1.BidiService/BidiAppend`, { method: 'POST', headers: { 'content-type': 'application/proto' }, body: request.toBinary() })
    await response.arrayBuffer()
    return response.status
  }

  reserve(): bigint {
    return this.#seqno++
  }

  /** The next server message, or the end-of-stream trailer. */
  async next(): Promise<{ message: CursorMessage; json: Json } | { end: Json }> {
    for (;;) {
      if (this.#buffer.length >= 5) {
        const length = this.#buffer.readUInt32BE(1)
        if (this.#buffer.length >= 5 + length) {
          const flags = this.#buffer[0]!
          const bytes = this.#buffer.subarray(5, 5 + length)
          this.#buffer = this.#buffer.subarray(5 + length)
          if ((flags & 2) !== 0) return { end: JSON.parse(bytes.toString('utf8')) as Json }
          const message = T('agent.v1.AgentServerMessage').fromBinary(bytes)
          return { message, json: message.toJson() as Json }
        }
      }
      const chunk = await this.#reader!.read()
      if (chunk.done) throw new Error('the stream ended without a trailer')
      this.#buffer = Buffer.concat([this.#buffer, chunk.value])
    }
  }

  /** Server messages up to (and including) the next exec, or to the end. */
  async untilExec(): Promise<{ updates: Json[]; exec?: Json; end?: Json }> {
    const updates: Json[] = []
    for (;;) {
      const next = await this.next()
      if ('end' in next) return { updates, end: next.end }
      if (next.json.execServerMessage !== undefined) return { updates, exec: next.json.execServerMessage as Json }
      updates.push(next.json.interactionUpdate as Json)
    }
  }
}

const runRequest = (text: string) => ({
  message: { case: 'runRequest', value: { conversationId: 'agent-1', action: { action: { case: 'userMessageAction', value: { userMessage: { text } } } } } },
})
const execResult = (id: number, kind: string, result: Json) => ({ message: { case: 'execClientMessage', value: { id, message: { case: kind, value: { result } } } } })
const requestContext = (id: number, rules: { content: string; fullPath: string }[] = [], workspace = WS) =>
  execResult(id, 'requestContextResult', { case: 'success', value: { requestContext: { rules, env: { workspacePaths: [workspace] } } } })

/** Answers an exec the way the SDK's local executor would, from made-up files. */
function answer(exec: Json, workspace = WS): Json {
  const id = Number(exec.id)
  if (exec.lsArgs !== undefined) {
    const tree = {
      absPath: workspace,
      childrenFiles: [{ name: 'README.md' }],
      childrenDirs: [
        { absPath: `${workspace}/src`, childrenFiles: [{ name: 'greet.js' }, { name: 'other.js' }] },
        { absPath: `${workspace}/.git`, childrenFiles: [{ name: `ORIG_HEAD.${workspace.length}` }] },
      ],
    }
    return execResult(id, 'lsResult', { case: 'success', value: { directoryTreeRoot: tree } })
  }
  if (exec.grepArgs !== undefined) return execResult(id, 'grepResult', { case: 'success', value: { pattern: (exec.grepArgs as Json).pattern, path: workspace } })
  if (exec.readArgs !== undefined) {
    const file = String((exec.readArgs as Json).path)
    return execResult(id, 'readResult', {
      case: 'success',
      value: { path: file, output: { case: 'content', value: file.endsWith('greet.js') ? task.edits[0]!.before! : '// other\n' } },
    })
  }
  if (exec.writeArgs !== undefined) return execResult(id, 'writeResult', { case: 'success', value: { path: (exec.writeArgs as Json).path } })
  throw new Error(`unexpected exec ${JSON.stringify(exec)}`)
}

describe('the Cursor agent backend protocol', () => {
  it('plays a whole session: asks for the request context, then tool calls as execs, and ends with turn_ended carrying the tokens it billed', async () => {
    const scripted = await start()
    const sdk = new SdkSide(scripted.url, 'req-1')
    const opened = await sdk.open()
    expect(opened.status).toBe(200)
    expect(opened.headers.get('content-type')).toBe('application/connect+proto')
    expect(await sdk.append(runRequest(task.prompt))).toBe(200)

    const first = await sdk.untilExec()
    expect(first.exec).toMatchObject({ requestContextArgs: {} })
    await sdk.append(requestContext(Number(first.exec!.id)))

    const execs: string[] = []
    const updates: Json[] = []
    let end: Json | undefined
    while (end === undefined) {
      const step = await sdk.untilExec()
      updates.push(...step.updates)
      end = step.end
      if (step.exec === undefined) break
      execs.push(Object.keys(step.exec).find((key) => key.endsWith('Args'))!)
      await sdk.append(answer(step.exec))
    }
    expect(end).toEqual({})
    expect(execs.at(-1)).toBe('writeArgs')
    expect(execs.filter((kind) => kind === 'readArgs').length).toBeGreaterThanOrEqual(1)
    const writes = updates
      .filter((update) => (update.toolCallStarted as Json | undefined)?.toolCall !== undefined)
      .map((update) => Object.keys((update.toolCallStarted as { toolCall: Json }).toolCall)[0])
    expect(writes).toHaveLength(execs.length)
    expect(writes.at(-1)).toBe('editToolCall')
    const turnEnded = updates.at(-1)!.turnEnded as Json
    const usage = scripted.usage
    expect(turnEnded).toEqual({
      inputTokens: String(usage.inputTokens),
      outputTokens: String(usage.outputTokens),
      cacheReadTokens: String(usage.cacheReadTokens),
      cacheWriteTokens: String(usage.cacheWriteTokens),
    })
    expect(usage.cacheReadTokens).toBeGreaterThan(0)
    expect(updates.filter((update) => update.stepStarted !== undefined)).toHaveLength(execs.length + 1)
  })

  it('bills the same tokens wherever the harness made the workspace (its path counts as a fixed stand-in; .git is not listed)', async () => {
    const billed = async (workspace: string) => {
      const scripted = await start(workspace)
      const sdk = new SdkSide(scripted.url, 'req-paths')
      await sdk.open()
      await sdk.append(runRequest(task.prompt))
      await sdk.append(requestContext(Number((await sdk.untilExec()).exec!.id), [], workspace))
      for (let step = await sdk.untilExec(); step.exec !== undefined; step = await sdk.untilExec()) await sdk.append(answer(step.exec, workspace))
      const usage = scripted.usage
      await server!.close()
      server = undefined
      return usage
    }
    const short = await billed('/w')
    expect(await billed('/tmp/a-much-longer-root/task-outcome-runs/shard-2/ws-Xy12Ab')).toEqual(short)
  })

  it('writes the whole fixed file where the edit lands, at the workspace path', async () => {
    const scripted = await start()
    const sdk = new SdkSide(scripted.url, 'req-edit')
    await sdk.open()
    await sdk.append(runRequest(task.prompt))
    let exec = (await sdk.untilExec()).exec!
    await sdk.append(requestContext(Number(exec.id)))
    for (;;) {
      exec = (await sdk.untilExec()).exec!
      if (exec.writeArgs !== undefined) break
      await sdk.append(answer(exec))
    }
    expect(exec.writeArgs).toMatchObject({ path: `${WS}/src/greet.js`, fileText: task.edits[0]!.after })
  })

  it('handles appends in their numbered order, whatever order they arrive in', async () => {
    const scripted = await start()
    const sdk = new SdkSide(scripted.url, 'req-order')
    await sdk.open()
    const runSeqno = sdk.reserve()
    // The SDK sends up to 16 appends at once: here the answer to the first exec (number 1) arrives
    // before the run request (number 0). Handled on arrival, it would answer nothing and the session would stall.
    await sdk.append(requestContext(1, [{ content: 'The greeting lives in src/greet.js.', fullPath: `${WS}/AGENTS.md` }]))
    await sdk.append(runRequest(task.prompt), runSeqno)
    expect((await sdk.untilExec()).exec).toMatchObject({ id: 1, requestContextArgs: {} })
    expect((await sdk.untilExec()).exec).toMatchObject({ readArgs: { path: `${WS}/src/greet.js` } })
    expect(scripted.requests.filter((request) => request.pathname.endsWith('/BidiAppend'))).toHaveLength(2)
  })

  it('shows the model the rules of the request context as its system prompt: a rule naming the file to fix sends it straight there', async () => {
    const explore = async (rules: { content: string; fullPath: string }[]) => {
      const scripted = await start()
      const sdk = new SdkSide(scripted.url, 'req-rules')
      await sdk.open()
      await sdk.append(runRequest(task.prompt))
      await sdk.append(requestContext(Number((await sdk.untilExec()).exec!.id), rules))
      const execs: string[] = []
      for (;;) {
        const exec = (await sdk.untilExec()).exec!
        if (exec.writeArgs !== undefined) break
        execs.push(Object.keys(exec).find((key) => key.endsWith('Args'))!)
        await sdk.append(answer(exec))
      }
      await server!.close()
      server = undefined
      return execs
    }
    const without = await explore([])
    const withRule = await explore([{ content: 'The greeting lives in src/greet.js.', fullPath: `${WS}/AGENTS.md` }])
    expect(without).toContain('lsArgs')
    expect(withRule).not.toContain('lsArgs')
    expect(withRule.length).toBeLessThan(without.length)
  })

  it('an exec the SDK threw on reaches the model as an error result, and the session goes on', async () => {
    const scripted = await start()
    const sdk = new SdkSide(scripted.url, 'req-throw')
    await sdk.open()
    await sdk.append(runRequest(task.prompt))
    await sdk.append(requestContext(Number((await sdk.untilExec()).exec!.id)))
    const failed = (await sdk.untilExec()).exec!
    await sdk.append({ message: { case: 'execClientControlMessage', value: { message: { case: 'throw', value: { id: failed.id, error: 'EACCES' } } } } })
    const after = await sdk.untilExec()
    expect(after.updates.find((update) => update.toolCallCompleted !== undefined)).toMatchObject({ toolCallCompleted: { callId: expect.any(String) } })
    // The model was shown the error and took its next step.
    expect(after.updates.some((update) => update.stepStarted !== undefined)).toBe(true)
    expect(after.exec ?? after.end).toBeDefined()
  })

  it('answers the front door: the key exchange, the model list for Cursor only, and the account settings as empty messages', async () => {
    const scripted = await start()
    const exchange = await fetch(`${scripted.url}/auth/exchange_user_api_key`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(await exchange.json()).toEqual({ accessToken: expect.any(String) })
    const models = await fetch(`${scripted.url}/v1/models`, { headers: { 'x-cursor-client-type': 'sdk' } })
    expect(((await models.json()) as { items: { id: string }[] }).items.map((item) => item.id)).toEqual(SCRIPTED_CURSOR_MODELS)
    expect((await fetch(`${scripted.url}/v1/models`)).status).toBe(404)
    const privacy = await fetch(`${scripted.url}/aiserver.v1.DashboardService/GetUserPrivacyMode`, {
      method: 'POST',
      headers: { 'content-type': 'application/proto' },
      body: new Uint8Array(0),
    })
    expect(privacy.status).toBe(200)
    expect((await privacy.arrayBuffer()).byteLength).toBe(0)
    expect(scripted.requests.map((request) => request.protocol)).toEqual(['cursor', 'cursor', 'cursor', 'cursor'])
  })

  it("answers an injected fault in Connect's error format", () => {
    expect(cursorAgentBackend.errorBody(401, 'Invalid API key')).toEqual({ code: 'unauthenticated', message: 'Invalid API key' })
    expect(cursorAgentBackend.errorBody(529, 'Overloaded')).toEqual({ code: 'unavailable', message: 'Overloaded' })
  })

  it('reads the message types from the installed @cursor/sdk', () => {
    expect(schemas.sdkVersion).toBe('1.0.31')
    expect(() => schemas.type('agent.v1.NoSuchMessage')).toThrow(/@cursor\/sdk 1\.0\.31 has no message type agent\.v1\.NoSuchMessage/)
  })
})
