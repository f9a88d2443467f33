import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ClaudeCodeAgent } from '../../src/agents/claude-code/agent.ts'
import { CodexAgent } from '../../src/agents/codex/agent.ts'
import { CursorAgent } from '../../src/agents/cursor/agent.ts'
import { GeminiAgent } from '../../src/agents/gemini/agent.ts'
import type { Agent } from '../../src/agents/types.ts'
import { AgentSpecSchema } from '../../src/experiment/schema.ts'
import { RunSandbox, toolchainMounts } from '../../src/sandbox/index.ts'
import { startScriptedModel } from '../../src/scripted-model/index.ts'
import { sendJson, type ProtocolHandler } from '../../src/scripted-model/server.ts'
import { failureOf } from '../helpers/harness-failure.ts'
import { GREET_AFTER, GREET_TASK, makeRunFolders, runRequest, taskWithSolution, type RunFolders } from '../helpers/scripted-session.ts'

// Every real agent CLI through the sandbox, against the scripted model server on the harness's 127.0.0.1: the
// adapter passes the server's port, the sandbox forwards it into the agent's own network namespace, and the
// proxy variables are set (NO_PROXY keeps loopback direct). The CLI's installation is mounted read-only; the
// workspace and HOME are the only writable folders.

/** Cursor's API-key exchange, the first thing its SDK calls (the session itself is Cursor's backend's; see the cursor tests). */
const cursorFrontDoor: ProtocolHandler = {
  name: 'cursor-front-door',
  route: (method, pathname) => (method === 'POST' && pathname === '/auth/exchange_user_api_key' ? 'model' : null),
  handle: (exchange) => sendJson(exchange.response, 200, { accessToken: 'scripted-access-token' }),
  errorBody: (status, message) => ({ error: { message, code: status } }),
}

let folders: RunFolders
let sandbox: RunSandbox
const repoRoot = path.resolve(import.meta.dirname, '../..')

beforeEach(async () => {
  folders = await makeRunFolders('sandboxed-agent')
  sandbox = await RunSandbox.open({ allow: [], writable: [folders.workspace, folders.home], readOnly: toolchainMounts(process.env.PATH, [repoRoot]) })
})
afterEach(async () => {
  await sandbox.close()
  await folders.cleanup()
})

async function solvesInSandbox(agent: Agent, options: { fixes: boolean; sideTraffic?: RegExp } = { fixes: true }): Promise<void> {
  const result = await agent.run(runRequest(folders, { task: await taskWithSolution(folders), sandbox }))
  expect(result.stop).toBe('completed')
  expect(result.costUsd).toBeGreaterThan(0)
  expect(result.turns).toBeGreaterThan(1)
  if (options.fixes) expect(await readFile(path.join(folders.workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
  // Nothing but the model was reached; what the CLI tried beyond it (its own side traffic) was refused and counted.
  if (options.sideTraffic === undefined) expect(sandbox.denials.examples).toEqual([])
  else for (const example of sandbox.denials.examples) expect(example).toMatch(options.sideTraffic)
}

describe('inside the sandbox, against the scripted model', () => {
  it('claude-code runs a whole session and fixes the bug', async () => {
    await solvesInSandbox(
      new ClaudeCodeAgent(AgentSpecSchema.parse({ kind: 'claude-code', model: 'claude-sonnet-4-5', options: { scriptedModel: { wrongEditRate: 0 } } }), {
        experimentDir: folders.root,
      }),
    )
  })

  it('claude-code reads a settings file the experiment names from the project (that file alone is mounted): its env and its hook reach the session', async () => {
    const { writeFile } = await import('node:fs/promises')
    // The hook, run by the CLI inside the sandbox, writes what it sees: the settings' env, and whether a file
    // beside the settings file in the project is visible (it must not be: only the named file is mounted).
    const sibling = path.join(folders.root, 'beside-the-settings.txt')
    await writeFile(sibling, 'project file\n')
    const hook = `echo "env=$TASK_OUTCOME_FROM_SETTINGS sibling=$(test -e ${sibling} && echo visible || echo hidden)" > "$CLAUDE_PROJECT_DIR/seen-by-hook.txt"`
    const settings = { env: { TASK_OUTCOME_FROM_SETTINGS: 'from-the-settings-file' }, hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }] } }
    await writeFile(path.join(folders.root, 'claude-settings.json'), `${JSON.stringify(settings)}\n`)
    const spec = AgentSpecSchema.parse({ kind: 'claude-code', model: 'claude-sonnet-4-5', options: { scriptedModel: { wrongEditRate: 0 }, settings: 'claude-settings.json' } })
    await solvesInSandbox(new ClaudeCodeAgent(spec, { experimentDir: folders.root }))
    expect(await readFile(path.join(folders.workspace, 'seen-by-hook.txt'), 'utf8')).toBe('env=from-the-settings-file sibling=hidden\n')
  })

  // Inside the harness's sandbox Codex runs its commands without a nested sandbox of its own (danger-full-access):
  // the run's bubblewrap is the wall.
  it('codex runs a whole session and fixes the bug', async () => {
    await solvesInSandbox(new CodexAgent(AgentSpecSchema.parse({ kind: 'codex', model: 'gpt-5.5', options: { scriptedModel: { wrongEditRate: 0 } } })), {
      fixes: true,
      // Codex 0.171.0 checks for updates and reports analytics (github.com, api.github.com, chatgpt.com, ab.chatgpt.com).
      sideTraffic: /^CONNECT (api\.)?github\.com:443$|^CONNECT (ab\.)?chatgpt\.com:443$/,
    })
  })

  it('gemini runs a whole session and fixes the bug', async () => {
    await solvesInSandbox(new GeminiAgent(AgentSpecSchema.parse({ kind: 'gemini', model: 'gemini-2.5-flash', options: { scriptedModel: { wrongEditRate: 0 } } })))
  })

  it('cursor reaches its backend on the forwarded loopback port (its key exchange, then a model list this server does not serve)', async () => {
    const server = await startScriptedModel({ task: GREET_TASK, seed: 1, workspace: folders.workspace, handlers: [cursorFrontDoor] })
    try {
      const agent = new CursorAgent(AgentSpecSchema.parse({ kind: 'cursor', model: 'gpt-5', options: { backendUrl: server.url, killGraceSeconds: 0.5 } }))
      const failure = await failureOf(agent.run(runRequest(folders, { sandbox, env: { CURSOR_API_KEY: 'test-key' } })))
      // The SDK, inside, exchanged its key with the server outside and then asked for the model list, which this server does not serve.
      expect(failure.message).toMatch(/scripted model server does not serve GET \/v1\/models/)
      expect(server.requests[0]).toMatchObject({ pathname: '/auth/exchange_user_api_key' })
    } finally {
      await server.close()
    }
  })
})
