import { readFile } from 'node:fs/promises'
import { afterEach, expect, test } from 'vitest'
import { CodexAgent } from '../../../src/agents/codex/agent.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'
import { openaiResponses } from '../../../src/scripted-model/openai-responses.ts'
import { runRequest } from '../../helpers/scripted-session.ts'
import { ScriptedSessionFixture } from '../../helpers/scripted-session-fixture.ts'
import { environmentRecordingBin, startStandInProvider, type StandInProvider } from '../../helpers/stand-in-provider.ts'

// The run's OpenAI key (passed with env.pass) is held by the harness: the real Codex CLI runs against a stand-in
// provider on 127.0.0.1 (a recorder of each request's authorization header in front of the scripted model server,
// as the real API would be), through the metering gateway. The provider gets the key on every request; the CLI's
// environment (which its notify program, MCP servers and tools inherit) holds only a placeholder. `agent.bin` is a
// shell script that writes its environment down and execs the pinned CLI.

const KEY = 'sk-openai-held-by-harness-0123456789'

const session = new ScriptedSessionFixture('codex-held-key', openaiResponses)
let provider: StandInProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

test('the provider gets the harness-held key on every request; the CLI and what it starts never see it', async () => {
  const scripted = await session.start(3)
  provider = await startStandInProvider(scripted.url, 'authorization')
  const { bin, seen } = await environmentRecordingBin(session.folders.root, session.folders.home, 'codex')
  const spec = { kind: 'codex', model: 'gpt-5.5', bin, options: { baseUrl: `${provider.url}/v1`, requestMaxRetries: 0, streamMaxRetries: 0, sandbox: 'danger-full-access' } }
  const result = await new CodexAgent(AgentSpecSchema.parse(spec)).run(runRequest(session.folders, { seed: 3, env: { OPENAI_API_KEY: KEY } }))
  expect(result.stop).toBe('completed')
  expect(result.metered?.requests).toBeGreaterThan(1)
  expect(provider.seen.length).toBeGreaterThan(1)
  expect(new Set(provider.seen)).toEqual(new Set([`Bearer ${KEY}`]))
  const inside = await readFile(seen, 'utf8')
  expect(inside).toMatch(/^OPENAI_API_KEY=held-by-the-task-outcome-gateway$/m)
  expect(inside).not.toContain(KEY)
})
