import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { ClaudeCodeAgent } from '../../../src/agents/claude-code/agent.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'
import { startScriptedModel, type ScriptedModelServer } from '../../../src/scripted-model/index.ts'
import { anthropicMessages } from '../../../src/scripted-model/anthropic.ts'
import { GREET_TASK, makeRunFolders, runRequest, type RunFolders } from '../../helpers/scripted-session.ts'

// The run's Anthropic key (passed with env.pass) is held by the harness: the real Claude Code CLI runs against a
// stand-in provider on 127.0.0.1 (a recorder of each request's key in front of the scripted model server, as the
// real API would be), through the metering gateway. The provider gets the key on every request; the CLI and a hook
// in its session see only a placeholder.

const KEY = 'sk-ant-held-by-harness-0123456789'

let folders: RunFolders
let scripted: ScriptedModelServer
let provider: http.Server
const keys: string[] = []

beforeEach(async () => {
  folders = await makeRunFolders('held-key')
  scripted = await startScriptedModel({ task: GREET_TASK, seed: 3, workspace: folders.workspace, handlers: [anthropicMessages], faults: [] })
  keys.length = 0
  const upstream = new URL(scripted.url)
  provider = http.createServer((request, response) => {
    keys.push(String(request.headers['x-api-key'] ?? '(none)'))
    const forwarded = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers }, (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.headers)
      reply.pipe(response)
    })
    request.pipe(forwarded)
  })
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
})
afterEach(async () => {
  await new Promise((resolve) => provider.close(resolve))
  await scripted.close()
  await folders.cleanup()
})

test('the provider gets the harness-held key on every request; the CLI and its hooks never see it', async () => {
  const seen = path.join(folders.home, 'hook-env.txt')
  await mkdir(path.join(folders.workspace, '.claude'), { recursive: true })
  const hooks = { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `/usr/bin/env > ${seen}` }] }] }
  await writeFile(path.join(folders.workspace, '.claude/settings.json'), JSON.stringify({ hooks }))
  const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
  const agent = new ClaudeCodeAgent(AgentSpecSchema.parse({ kind: 'claude-code', model: 'claude-sonnet-4-5' }), { experimentDir: folders.root })
  const result = await agent.run(runRequest(folders, { seed: 3, env: { ANTHROPIC_BASE_URL: providerUrl, ANTHROPIC_API_KEY: KEY } }))
  expect(result.stop).toBe('completed')
  expect(result.metered?.requests).toBeGreaterThan(1)
  expect(keys.length).toBeGreaterThan(1)
  expect(new Set(keys)).toEqual(new Set([KEY]))
  const inside = await readFile(seen, 'utf8')
  expect(inside).toMatch(/^ANTHROPIC_API_KEY=held-by-the-task-outcome-gateway$/m)
  expect(inside).not.toContain(KEY)
  expect(inside).not.toContain(providerUrl)
})
