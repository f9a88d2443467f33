import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ClaudeCodeAgent } from '../../../src/agents/claude-code/agent.ts'
import { processGroupAlive } from '../../../src/sandbox/index.ts'
import { claudeSpec, makeSandbox, put, type Sandbox } from './session-helpers.ts'
import { alive } from '../../helpers/alive.ts'

// The harness's own timeout, for real: the scripted model stalls, the real
// CLI waits on it (its own request timeout is far longer), and the harness
// kills the run. A hook the CLI runs records the run's process group and
// leaves a background process in it; afterwards nothing of the run may live.

let sandbox: Sandbox
beforeAll(async () => {
  sandbox = await makeSandbox()
})
afterAll(async () => {
  await sandbox.dispose()
})

test('a stalled session is killed at the timeout, whole process group included, and is a timeout', async () => {
  const workspace = await sandbox.workspace()
  const record = path.join(sandbox.dir, 'hook-record.txt')
  await put(workspace, '.claude/hook.sh', `#!/usr/bin/env bash\nsleep 300 >/dev/null 2>&1 &\necho "$(ps -o pgid= -p $$ | tr -d ' ') $! $TASK_OUTCOME_RUN_TAG" > ${record}\n`)
  await put(
    workspace,
    '.claude/settings.json',
    JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `bash "$CLAUDE_PROJECT_DIR/.claude/hook.sh"` }] }] } }),
  )
  const agent = new ClaudeCodeAgent(claudeSpec({ options: { killGraceSeconds: 1, scriptedModel: { faults: [{ fault: { kind: 'stall' } }] } } }), {
    experimentDir: sandbox.dir,
  })
  const started = Date.now()
  // 12 s: long enough for the CLI to start and run its hook on a loaded machine, before the stalled model times it out.
  const result = await agent.run(await sandbox.request(workspace, { timeoutMs: 12_000 }))
  expect(Date.now() - started).toBeLessThan(40_000)
  expect(result.stop).toBe('timeout')
  expect(result.wallMs).toBeGreaterThanOrEqual(12_000)
  const [pgidText, sleeperText, tag] = (await readFile(record, 'utf8')).trim().split(' ')
  const pgid = Number(pgidText)
  expect(pgid).toBeGreaterThan(1)
  expect(pgid).not.toBe(process.pid)
  expect(tag).toMatch(/^[0-9a-f-]{36}$/)
  // The hook ran in a session of its own (the CLI starts hooks with setsid), and still nothing survived.
  expect(alive(Number(sleeperText))).toBe(false)
  expect(processGroupAlive(pgid, tag)).toBe(false)
})
