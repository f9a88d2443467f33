import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ClaudeCodeAgent } from '../../../src/agents/claude-code/agent.ts'
import type { AgentRunResult } from '../../../src/agents/types.ts'
import { claudeSpec, GREET_AFTER, makeSandbox, put, type Sandbox } from './session-helpers.ts'

// What a context tool does, for real: the workspace's `.claude/settings.json`
// installs hooks the real CLI runs, or a CLAUDE.md it loads; the scripted
// model reacts to what it is shown. Same task, same seed, three arms.

let sandbox: Sandbox
let baseline: AgentRunResult
beforeAll(async () => {
  sandbox = await makeSandbox()
  baseline = await runArm(await sandbox.workspace('baseline'))
})
afterAll(async () => {
  await sandbox.dispose()
})

async function runArm(workspace: string): Promise<AgentRunResult> {
  const agent = new ClaudeCodeAgent(claudeSpec({ options: { scriptedModel: { wrongEditRate: 0, hintedDecoyRate: 0 } } }), { experimentDir: sandbox.dir })
  return agent.run(await sandbox.request(workspace, { seed: 3 }))
}

const hookSettings = {
  hooks: {
    UserPromptSubmit: [
      {
        hooks: [
          {
            type: 'command',
            command: `echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'Likely relevant files: src/greet.js' } })}'`,
          },
        ],
      },
    ],
    PostToolUse: [{ matcher: 'Edit|Write|MultiEdit', hooks: [{ type: 'command', command: 'true' }] }],
  },
}

describe('the scripted model reacts to context, through the real CLI', () => {
  test('baseline: no hint, so it explores before the first edit', async () => {
    expect(baseline.stop).toBe('completed')
    expect(baseline.toolCallsBeforeFirstEdit).toBeGreaterThanOrEqual(4) // list, search, another file, the file itself
    expect(baseline.hooksFired).toEqual({})
  })

  test('a hook naming the file: the hooks are counted, exploration and cost drop', async () => {
    const workspace = await sandbox.workspace('hook')
    await put(workspace, '.claude/settings.json', JSON.stringify(hookSettings))
    const result = await runArm(workspace)
    expect(result.stop).toBe('completed')
    expect(result.hooksFired).toMatchObject({ UserPromptSubmit: 1, PostToolUse: 1 })
    // The harness's own count of the hooks' starts (they are wrapped) agrees with the CLI's hook_response lines.
    expect(result.hookStarts).toEqual({ byEvent: { UserPromptSubmit: 1, PostToolUse: 1 }, foreign: [] })
    // Only bin/cli.js (the prompt names it) and then src/greet.js are read: no listing, no search.
    expect(result.toolCallsBeforeFirstEdit).toBe(2)
    expect(result.turns!).toBeLessThan(baseline.turns!)
    expect(result.costUsd).toBeLessThan(baseline.costUsd)
    expect(result.tokens!.cacheRead).toBeLessThan(baseline.tokens!.cacheRead)
    expect(await readFile(path.join(workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
  })

  test("setting sources fixed to none by the run: the workspace's hooks are not loaded, so nothing changes", async () => {
    const workspace = await sandbox.workspace('no-sources')
    await put(workspace, '.claude/settings.json', JSON.stringify(hookSettings))
    const agent = new ClaudeCodeAgent(claudeSpec({ options: { scriptedModel: { wrongEditRate: 0, hintedDecoyRate: 0 } } }), { experimentDir: sandbox.dir })
    const result = await agent.run(await sandbox.request(workspace, { seed: 3, settingSources: [] }))
    expect(result.hooksFired).toEqual({})
    expect(result.toolCallsBeforeFirstEdit).toBe(baseline.toolCallsBeforeFirstEdit)
    expect(result.turns).toBe(baseline.turns)
  })

  test('a CLAUDE.md naming the file does the same', async () => {
    const workspace = await sandbox.workspace('claude-md')
    await put(workspace, 'CLAUDE.md', '# Project notes\n\nThe greeting text is built in src/greet.js.\n')
    const result = await runArm(workspace)
    expect(result.toolCallsBeforeFirstEdit).toBe(2)
    expect(result.turns!).toBeLessThan(baseline.turns!)
    expect(result.costUsd).toBeLessThan(baseline.costUsd)
  })
})
