import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { ClaudeCodeAgent } from '../../../src/agents/claude-code/agent.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'
import { anthropicMessages } from '../../../src/scripted-model/anthropic.ts'
import { failureOf } from '../../helpers/harness-failure.ts'
import { runRequest } from '../../helpers/scripted-session.ts'
import { ScriptedSessionFixture } from '../../helpers/scripted-session-fixture.ts'
import { startStandInProvider, type StandInProvider } from '../../helpers/stand-in-provider.ts'

// A CLI run whose traffic goes around the metering gateway is a harness failure, never a run costed from the CLI's
// word alone: the real Claude Code CLI, pointed at the gateway by the harness, is pointed straight at the provider
// (a stand-in on 127.0.0.1 in front of the scripted model server) by an `env` entry in the workspace's
// .claude/settings.json, which the CLI applies over its own environment.

const session = new ScriptedSessionFixture('unmetered', anthropicMessages)
let provider: StandInProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

test("settings that send the CLI's traffic straight to the provider make the run unmetered: not retried, not recorded", async () => {
  const scripted = await session.start(3)
  provider = await startStandInProvider(scripted.url, 'x-api-key')
  await mkdir(path.join(session.folders.workspace, '.claude'), { recursive: true })
  await writeFile(path.join(session.folders.workspace, '.claude/settings.json'), JSON.stringify({ env: { ANTHROPIC_BASE_URL: provider.url } }))
  const agent = new ClaudeCodeAgent(AgentSpecSchema.parse({ kind: 'claude-code', model: 'claude-sonnet-4-5' }), { experimentDir: session.folders.root })
  const failure = await failureOf(agent.run(runRequest(session.folders, { seed: 3, env: { ANTHROPIC_BASE_URL: provider.url, ANTHROPIC_API_KEY: 'sk-ant-test' } })))
  // The model requests reached the provider from the CLI itself, with the placeholder key, not the one the gateway
  // holds (only a first request without usage, made before the CLI applied its settings, went through the gateway).
  expect(provider.seen.filter((key) => key === 'held-by-the-task-outcome-gateway').length).toBeGreaterThan(1)
  expect(provider.seen.filter((key) => key === 'sk-ant-test').length).toBeLessThanOrEqual(1)
  expect(failure.reason).toBe('unmetered')
  expect(failure.retryable).toBe(false)
  expect(failure.message).toMatch(/reported usage \(\d+ tokens, \$[\d.e-]+\) but its metering gateway counted no model request/)
})
