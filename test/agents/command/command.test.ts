import { chmod, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CommandAgent } from '../../../src/agents/command/agent.ts'
import { SpecError } from '../../../src/errors.ts'
import { AgentSpecSchema } from '../../../src/experiment/schema.ts'
import { GREET_AFTER, GREET_PROMPT, makeRunFolders, processesOf, runRequest, type RunFolders } from '../../helpers/scripted-session.ts'
import { failureOf } from '../../helpers/harness-failure.ts'

// Real executables (bash scripts) run as the agent in a real git workspace, in their own
// process group, with real signals at the timeout.

let folders: RunFolders

beforeEach(async () => {
  folders = await makeRunFolders('command-test')
})
afterEach(async () => {
  await folders.cleanup()
})

/** Writes an executable bash script into the run's root folder (the "experiment folder" here); returns its relative path. */
async function script(name: string, body: string): Promise<string> {
  const file = path.join(folders.root, name)
  await writeFile(file, `#!/bin/bash\nset -euo pipefail\n${body}\n`)
  await chmod(file, 0o755)
  return `./${name}`
}

function agent(bin: string, spec: Record<string, unknown> = {}): CommandAgent {
  return new CommandAgent(AgentSpecSchema.parse({ kind: 'command', bin, ...spec }), { experimentDir: folders.root })
}

const RESULT = {
  status: 'completed',
  costUsd: 0.0123,
  tokens: { input: 1200, output: 340, cacheRead: 5000, cacheWrite: 0 },
  model: 'my-model',
  turns: 6,
  toolCalls: 5,
  toolCallsBeforeFirstEdit: 3,
  hooksFired: { PostToolUse: 2 },
}

describe('a command agent', () => {
  it('gets the prompt on stdin and the workspace as its directory, and its JSON result is read', async () => {
    const bin = await script(
      'fix.sh',
      `cat > "$HOME/prompt.txt"
pwd > "$HOME/cwd.txt"
echo "seed=$TASK_OUTCOME_SEED arm=$TASK_OUTCOME_ARM budget=$TASK_OUTCOME_BUDGET_USD" > "$HOME/env.txt"
sed -i 's/"Hello "/"Hello, "/' src/greet.js
echo "log: fixed greet.js"
echo '${JSON.stringify(RESULT)}'`,
    )
    const result = await agent(bin).run(runRequest(folders, { seed: 4 }))
    expect(await readFile(path.join(folders.home, 'prompt.txt'), 'utf8')).toBe(GREET_PROMPT)
    expect((await readFile(path.join(folders.home, 'cwd.txt'), 'utf8')).trim()).toBe(folders.workspace)
    expect((await readFile(path.join(folders.home, 'env.txt'), 'utf8')).trim()).toBe('seed=4 arm=baseline budget=1')
    expect(await readFile(path.join(folders.workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
    expect(result).toMatchObject({
      stop: 'completed',
      costUsd: 0.0123,
      costSource: 'agent',
      tokens: RESULT.tokens,
      model: 'my-model',
      turns: 6,
      toolCalls: 5,
      toolCallsBeforeFirstEdit: 3,
      hooksFired: { PostToolUse: 2 },
    })
    expect(await readFile(folders.transcriptPath, 'utf8')).toMatch(/^log: fixed greet.js\n\{/)
  })

  it('without costUsd, prices the tokens of the model it names', async () => {
    const priced = { status: 'completed', tokens: { input: 1700, output: 150, cacheRead: 1600, cacheWrite: 0 }, model: 'gpt-5' }
    const result = await agent(await script('priced.sh', `echo '${JSON.stringify(priced)}'`), { options: { priceProvider: 'openai' } }).run(runRequest(folders))
    expect(result.costSource).toBe('priced')
    expect(result.costUsd).toBeCloseTo(1700 * 1.25e-6 + 1600 * 0.125e-6 + 150 * 10e-6, 12)
    expect(result.turns).toBeNull()
  })

  it('may leave stdin unread', async () => {
    const result = await agent(await script('ignores-stdin.sh', `echo '${JSON.stringify(RESULT)}'`)).run(runRequest(folders, { prompt: 'x'.repeat(1_000_000) }))
    expect(result.stop).toBe('completed')
  })

  it('reports its own limits as max-turns and max-budget stops', async () => {
    const result = await agent(await script('limit.sh', `echo '${JSON.stringify({ ...RESULT, status: 'max-budget' })}'`)).run(runRequest(folders))
    expect(result.stop).toBe('max-budget')
  })
})

describe('a malformed result is a harness failure naming the field', () => {
  it.each([
    ['no status', { costUsd: 1 }, /status/],
    ['a token count that is not a number', { ...RESULT, tokens: { ...RESULT.tokens, input: 'many' } }, /tokens\.input/],
    ['an unknown field', { ...RESULT, cost: 1 }, /cost/],
    ['neither costUsd nor tokens and model', { status: 'completed', turns: 3 }, /costUsd: required, unless both "tokens" and "model"/],
    ['status error without its error', { status: 'error' }, /error: required when status is "error"/],
  ])('%s', async (_name, printed, field) => {
    const failure = await failureOf(agent(await script('bad.sh', `echo '${JSON.stringify(printed)}'`)).run(runRequest(folders)))
    expect(failure.reason).toBe('no-result')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(field)
  })

  it('a last line that is not JSON', async () => {
    const failure = await failureOf(agent(await script('text.sh', 'echo "all done"')).run(runRequest(folders)))
    expect(failure.message).toMatch(/last stdout line is not JSON.*all done/)
  })

  it('nothing printed', async () => {
    const failure = await failureOf(agent(await script('silent.sh', 'true')).run(runRequest(folders)))
    expect(failure.message).toMatch(/printed nothing/)
  })
})

describe('failures a command reports or shows', () => {
  it('status error with reason auth is not retried', async () => {
    const printed = { status: 'error', error: { reason: 'auth', message: 'no API key' } }
    const failure = await failureOf(agent(await script('auth.sh', `echo '${JSON.stringify(printed)}'; exit 3`)).run(runRequest(folders)))
    expect(failure.reason).toBe('auth')
    expect(failure.retryable).toBe(false)
    expect(failure.message).toMatch(/no API key/)
  })

  it('status error with reason api-error is retried', async () => {
    const printed = { status: 'error', error: { reason: 'api-error', message: '529 overloaded' } }
    const failure = await failureOf(agent(await script('api.sh', `echo '${JSON.stringify(printed)}'`)).run(runRequest(folders)))
    expect(failure.reason).toBe('api-error')
    expect(failure.retryable).toBe(true)
  })

  it('a non-zero exit without an error result is a crash quoting stderr', async () => {
    const failure = await failureOf(agent(await script('crash.sh', `echo '${JSON.stringify(RESULT)}'; echo "segfault in model loop" >&2; exit 2`)).run(runRequest(folders)))
    expect(failure.reason).toBe('crash')
    expect(failure.message).toMatch(/exited 2: segfault in model loop/)
  })

  it('a completed run at $0 is a harness failure unless allowed', async () => {
    const bin = await script('free.sh', `echo '${JSON.stringify({ ...RESULT, costUsd: 0 })}'`)
    expect((await failureOf(agent(bin).run(runRequest(folders)))).reason).toBe('zero-cost')
    expect((await agent(bin, { options: { allowZeroCost: true } }).run(runRequest(folders))).costUsd).toBe(0)
  })

  it('past the timeout the whole process group is killed: a timeout stop, nothing left alive', async () => {
    const bin = await script('hang.sh', `sleep 60 &\nsleep 60`)
    const started = Date.now()
    const result = await agent(bin, { options: { killGraceSeconds: 0.5 } }).run(runRequest(folders, { timeoutMs: 1000 }))
    expect(result.stop).toBe('timeout')
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(processesOf(folders.root)).toEqual([])
  })
})

describe('the spec', () => {
  it('needs agent.bin, and names options that are wrong', () => {
    expect(() => new CommandAgent(AgentSpecSchema.parse({ kind: 'command' }), { experimentDir: '/' })).toThrow(SpecError)
    expect(() => agent('x.sh', { options: { allowZeroCosts: true } })).toThrow(/agent\.options\.allowZeroCosts: unknown field/)
  })

  it('refuses a bin that is not an executable file, before any run', async () => {
    await expect(agent('./missing.sh').version({ PATH: '/usr/bin:/bin' })).rejects.toThrow(/missing\.sh" is not an executable file/)
  })

  it("versions the command by its executable's content", async () => {
    const bin = await script('v.sh', 'echo one')
    const first = await agent(bin).version({ PATH: '/usr/bin:/bin' })
    expect(first).toMatch(/^command v\.sh sha256:[0-9a-f]{12}; genai-prices \d+\.\d+\.\d+$/)
    await script('v.sh', 'echo two')
    expect(await agent(bin).version({ PATH: '/usr/bin:/bin' })).not.toBe(first)
    expect(await agent(bin, { options: { version: '2.0' } }).version({ PATH: '/usr/bin:/bin' })).toMatch(/^command 2\.0; /)
    expect(await agent('bash').version({ PATH: '/usr/bin:/bin' })).toMatch(/^command bash sha256:/)
  })
})
