import { readFile } from 'node:fs/promises'
import { afterEach, expect, test } from 'vitest'
import { GeminiAgent } from '../../../src/agents/gemini/agent.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'
import { geminiApi } from '../../../src/scripted-model/gemini.ts'
import { runRequest } from '../../helpers/scripted-session.ts'
import { ScriptedSessionFixture } from '../../helpers/scripted-session-fixture.ts'
import { environmentRecordingBin, startStandInProvider, type StandInProvider } from '../../helpers/stand-in-provider.ts'

// The run's Gemini key (passed with env.pass) is held by the harness: the real Gemini CLI runs against a stand-in
// provider on 127.0.0.1 (a recorder of each request's x-goog-api-key header in front of the scripted model server,
// as the real API would be), through the metering gateway. The provider gets the key on every request; the CLI's
// environment (which its hooks, MCP servers and tools inherit) holds only a placeholder. `agent.bin` is a shell
// script that writes its environment down and execs the pinned CLI.

const KEY = 'AIza-held-by-harness-0123456789'

const session = new ScriptedSessionFixture('gemini-held-key', geminiApi)
let provider: StandInProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

test('the provider gets the harness-held key on every request; the CLI and what it starts never see it', async () => {
  const scripted = await session.start(3)
  provider = await startStandInProvider(scripted.url, 'x-goog-api-key')
  const { bin, seen } = await environmentRecordingBin(session.folders.root, session.folders.home, 'gemini')
  const spec = { kind: 'gemini', model: 'gemini-2.5-flash', bin, options: { baseUrl: provider.url, maxAttempts: 1 } }
  const result = await new GeminiAgent(AgentSpecSchema.parse(spec)).run(runRequest(session.folders, { seed: 3, env: { GEMINI_API_KEY: KEY } }))
  expect(result.stop).toBe('completed')
  expect(result.metered?.requests).toBeGreaterThan(1)
  expect(provider.seen.length).toBeGreaterThan(1)
  expect(new Set(provider.seen)).toEqual(new Set([KEY]))
  const inside = await readFile(seen, 'utf8')
  expect(inside).toMatch(/^GEMINI_API_KEY=held-by-the-task-outcome-gateway$/m)
  expect(inside).not.toContain(KEY)
})
