import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ClaudeCodeAgent, SCRIPTED_API_KEY } from '../../../src/agents/claude-code/agent.ts'
import { startScriptedModel } from '../../../src/scripted-model/index.ts'
import { contextHints, initialContext, planSession } from '../../../src/scripted-model/policy.ts'
import { learnScriptedTask } from '../../../src/scripted-model/task-knowledge.ts'
import { claudeSpec, GREET_AFTER, makeSandbox, SONNET_45, type Sandbox } from './session-helpers.ts'

// The real Claude Code CLI (the pinned npm dependency) runs a whole session
// against the scripted model server on 127.0.0.1. The test starts the server
// itself, so what the server billed is an independent truth to check the
// adapter's reading of the CLI's stream against.

let sandbox: Sandbox
beforeAll(async () => {
  sandbox = await makeSandbox()
})
afterAll(async () => {
  await sandbox.dispose()
})

describe('a successful session', () => {
  test('is parsed into the cost, turns, tokens and tool calls the model server saw', async () => {
    const workspace = await sandbox.workspace()
    const task = await learnScriptedTask(sandbox.task, workspace)
    const server = await startScriptedModel({ task, seed: 7, workspace, policy: { wrongEditRate: 0 } })
    try {
      const agent = new ClaudeCodeAgent(claudeSpec(), { experimentDir: sandbox.dir })
      const request = await sandbox.request(workspace, { seed: 7 })
      const result = await agent.run({ ...request, env: { ...request.env, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: SCRIPTED_API_KEY } })

      // What the policy played: no file of the fix is named in the prompt, so it explores first.
      const plan = planSession(
        task,
        7,
        contextHints(initialContext({ system: '', messages: [{ role: 'user', parts: [{ type: 'text', text: sandbox.task.prompt }] }], tools: [], kind: 'agent' }), task),
        {
          wrongEditRate: 0,
        },
      )
      const firstEdit = plan.findIndex((turn) => turn.action.kind === 'edit')
      expect(firstEdit).toBeGreaterThan(2)

      expect(result.stop).toBe('completed')
      expect(result.costSource).toBe('agent')
      expect(result.turns).toBe(plan.length)
      expect(result.toolCalls).toBe(plan.length - 1)
      expect(result.toolCallsBeforeFirstEdit).toBe(firstEdit)
      expect(result.model).toBe('claude-sonnet-4-5')
      // Tokens: exactly what the server billed (main loop and the CLI's side requests alike).
      const billed = server.usage
      expect(result.tokens).toEqual({ input: billed.inputTokens, output: billed.outputTokens, cacheRead: billed.cacheReadTokens, cacheWrite: billed.cacheWriteTokens })
      // Cost: the CLI's own price table applied to those tokens.
      const expected =
        billed.inputTokens * SONNET_45.input +
        billed.outputTokens * SONNET_45.output +
        billed.cacheWriteTokens * SONNET_45.cacheWrite +
        billed.cacheReadTokens * SONNET_45.cacheRead
      expect(result.costUsd).toBeCloseTo(expected, 9)
      expect(result.costUsd).toBeGreaterThan(0)
      // Metered: the run's gateway stood between the CLI and the server and counted the same tokens from the
      // server's own usage fields, one request per model call, priced by the bundled table at the same rates.
      expect(result.metered).toEqual({
        requests: server.requests.filter((served) => served.route === 'model').length,
        tokens: result.tokens,
        costUsd: expect.closeTo(expected, 9),
        models: ['claude-sonnet-4-5'],
      })
      // The edit really happened, through the CLI's Edit tool.
      expect(await readFile(path.join(workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
      // The transcript is the raw stream, and its hash is the file's.
      const transcript = await readFile(request.transcriptPath)
      expect(result.transcriptSha256).toBe(createHash('sha256').update(transcript).digest('hex'))
      const events = transcript
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string })
      expect(events.at(-1)?.type).toBe('result')
      expect(result.hooksFired).toEqual({})
      expect(result.wallMs).toBeGreaterThan(0)
    } finally {
      await server.close()
    }
  })

  test("the agent's own budget cap stops it: max-budget, a measurement, its spend from modelUsage", async () => {
    const workspace = await sandbox.workspace()
    const agent = new ClaudeCodeAgent(claudeSpec({ options: { scriptedModel: true } }), { experimentDir: sandbox.dir })
    // The first turn writes the CLI's whole system prompt to the cache: more than a cent.
    const result = await agent.run(await sandbox.request(workspace, { budgetUsd: 0.01 }))
    expect(result.stop).toBe('max-budget')
    expect(result.costUsd).toBeGreaterThan(0.01)
    expect(result.tokens!.cacheWrite).toBeGreaterThan(0)
    expect(result.turns).toBe(1)
  })

  test("the agent's own turn limit stops it: max-turns, a measurement", async () => {
    const workspace = await sandbox.workspace()
    const agent = new ClaudeCodeAgent(claudeSpec({ maxTurns: 2, options: { scriptedModel: true } }), { experimentDir: sandbox.dir })
    const result = await agent.run(await sandbox.request(workspace))
    expect(result.stop).toBe('max-turns')
    expect(result.costUsd).toBeGreaterThan(0)
    expect(result.toolCalls).toBe(2)
    expect(result.toolCallsBeforeFirstEdit).toBeNull() // stopped while still exploring
    expect(await readFile(path.join(workspace, 'src/greet.js'), 'utf8')).not.toBe(GREET_AFTER)
  })

  test("version() is the pinned CLI's own --version", async () => {
    const agent = new ClaudeCodeAgent(claudeSpec(), { experimentDir: sandbox.dir })
    const version = await agent.version({ PATH: process.env.PATH ?? '', HOME: sandbox.dir })
    const pinned = JSON.parse(await readFile(path.resolve(import.meta.dirname, '../../../node_modules/@anthropic-ai/claude-code/package.json'), 'utf8')) as { version: string }
    expect(version).toBe(`${pinned.version} (Claude Code)`)
  })
})
