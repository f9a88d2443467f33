import { describe, expect, test } from 'vitest'
import { classifyClaudeRun, type ClaudeProcessEnd } from '../../../src/agents/claude-code/classify.ts'
import { parseClaudeStream } from '../../../src/agents/claude-code/stream.ts'
import { capturedOutput } from '../../helpers/captured-output.ts'

// Every captured output of the real Claude Code CLI (copied from
// ../shared/reference/agent-output/, see its README) with the classification
// the harness must give it.

const { fixture } = capturedOutput(import.meta.dirname)
const exited = (exitCode: number, stderr = ''): ClaudeProcessEnd => ({ exitCode, signal: null, timedOut: false, aborted: false, stderr })
const killedByTimeout: ClaudeProcessEnd = { exitCode: null, signal: 'SIGTERM', timedOut: true, aborted: false, stderr: '' }

function classify(stdoutFile: string | null, end: ClaudeProcessEnd) {
  const stream = parseClaudeStream(stdoutFile === null ? '' : fixture(stdoutFile))
  return { stream, outcome: classifyClaudeRun(stream, end) }
}

describe('captured failures are harness failures', () => {
  test.each([
    // file, exit, expected reason, retryable
    ['claude-stream-json.jsonl', 1, 'auth', false], // "Not logged in", subtype success, is_error true, $0
    ['claude-2.1.332-stream-json.jsonl', 1, 'auth', false], // same with terminal_reason api_error, other key order
    ['claude-agent-sdk-nocreds.jsonl', 1, 'auth', false],
    ['claude-stream-json-401-noretry.jsonl', 1, 'auth', false], // api_error_status 401
    ['claude-stream-json-fakekey-connrefused.jsonl', 1, 'api-error', true], // ten api_retry then is_error
    ['claude-json.json', 1, 'api-error', true], // --output-format json: no init event, so not recognisably auth; still no measurement
  ] as const)('%s → %s', (file, exitCode, reason, retryable) => {
    const { outcome } = classify(file, exited(exitCode))
    expect(outcome).toMatchObject({ kind: 'failure', reason, retryable })
  })

  test("the failure message is the CLI's own", () => {
    const { outcome } = classify('claude-stream-json.jsonl', exited(1))
    expect(outcome.kind === 'failure' && outcome.message).toContain('Not logged in · Please run /login')
    const { outcome: key } = classify('claude-stream-json-401-noretry.jsonl', exited(1))
    expect(key.kind === 'failure' && key.message).toContain('Invalid API key')
  })

  test('"Not logged in" says which variable to set and that env.pass must name it; a refused key names both too', () => {
    const { outcome } = classify('claude-stream-json.jsonl', exited(1))
    expect(outcome.kind === 'failure' && outcome.message).toMatch(/Not logged in.*: no credentials reached claude; set ANTHROPIC_API_KEY .* name it in the experiment's env\.pass/)
    const { outcome: key } = classify('claude-stream-json-401-noretry.jsonl', exited(1))
    expect(key.kind === 'failure' && key.message).toMatch(/Invalid API key.*: the API refused the key; check the ANTHROPIC_API_KEY .*env\.pass/)
  })

  test('a 401 the CLI kept retrying until the harness timeout is auth, not a timeout', () => {
    const { stream, outcome } = classify('claude-stream-json-401-timeout120s.jsonl', killedByTimeout)
    expect(stream.result).toBeNull()
    expect(stream.apiRetries).toBe(9)
    expect(outcome).toMatchObject({ kind: 'failure', reason: 'auth', retryable: false })
  })

  test('stream-json without --verbose is refused (nothing on stdout, exit 1)', () => {
    const { outcome } = classify(null, exited(1, fixture('claude-stream-noverbose.txt')))
    expect(outcome).toMatchObject({ kind: 'failure', reason: 'refused', retryable: false })
    expect(outcome.kind === 'failure' && outcome.message).toContain('requires --verbose')
  })

  test('as root, --dangerously-skip-permissions without IS_SANDBOX is refused', () => {
    const { outcome } = classify(null, exited(1, fixture('claude-mock-session-root-skipperms.stderr.txt')))
    expect(outcome).toMatchObject({ kind: 'failure', reason: 'refused' })
  })

  test('as root, bypassPermissions without IS_SANDBOX exits 1 silently: refused, with a hint', () => {
    const { outcome } = classify(null, exited(1))
    expect(outcome).toMatchObject({ kind: 'failure', reason: 'refused' })
    expect(outcome.kind === 'failure' && outcome.message).toContain('IS_SANDBOX=1')
  })

  test('a session cut off mid-way with no result event is no-result', () => {
    const lines = fixture('claude-mock-session.jsonl')
      .split('\n')
      .filter((line) => !line.includes('"type":"result"'))
    const stream = parseClaudeStream(lines.join('\n'))
    expect(classifyClaudeRun(stream, exited(0))).toMatchObject({ kind: 'failure', reason: 'no-result', retryable: true })
    expect(classifyClaudeRun(stream, { ...exited(0), exitCode: null, signal: 'SIGSEGV' })).toMatchObject({ kind: 'failure', reason: 'crash' })
  })
})

describe('captured sessions are measurements', () => {
  test('a full session with hooks: cost, turns, tokens, tool calls, hooks', () => {
    const { stream, outcome } = classify('claude-mock-session.jsonl', exited(0))
    expect(outcome).toEqual({
      kind: 'measured',
      stop: 'completed',
      costUsd: 0.026099999999999998,
      turns: 4,
      tokens: { input: 4600, output: 200, cacheRead: 6000, cacheWrite: 2000 },
    })
    expect(stream.toolCalls).toBe(3) // Bash, Read, Edit
    expect(stream.toolCallsBeforeFirstEdit).toBe(2)
    expect(stream.hooksFired).toEqual({ SessionStart: 1, UserPromptSubmit: 1, PreToolUse: 3, PostToolUse: 1, Stop: 1 })
    expect(stream.model).toBe('claude-sonnet-4-5')
  })

  test("tokens come from modelUsage, which can exceed the main loop's usage (side requests)", () => {
    const { outcome } = classify('claude-agent-sdk-mock-session.jsonl', exited(0))
    expect(outcome).toMatchObject({ kind: 'measured', stop: 'completed', costUsd: 0.03735, tokens: { input: 5600, output: 250, cacheRead: 6000, cacheWrite: 4000 } })
  })

  test('error_max_turns is the agent stopping, not a failure (is_error true notwithstanding)', () => {
    const { stream, outcome } = classify('claude-mock-maxturns2.jsonl', exited(1))
    expect(outcome).toMatchObject({ kind: 'measured', stop: 'max-turns', costUsd: 0.02715, turns: 3 })
    expect(stream.toolCalls).toBe(2)
    expect(stream.toolCallsBeforeFirstEdit).toBeNull() // it never edited
  })

  test('error_max_budget_usd: cost and tokens from modelUsage though usage is all zeros', () => {
    const { outcome } = classify('claude-mock-maxbudget.jsonl', exited(1))
    expect(outcome).toEqual({
      kind: 'measured',
      stop: 'max-budget',
      costUsd: 0.01125,
      turns: 1,
      tokens: { input: 1000, output: 50, cacheRead: 0, cacheWrite: 2000 },
    })
  })

  test('default permission mode: the denied edit still counts as the first edit; the run is a measurement', () => {
    const { stream, outcome } = classify('claude-mock-default-perms.jsonl', exited(0))
    expect(outcome).toMatchObject({ kind: 'measured', stop: 'completed' })
    expect(stream.toolCallsBeforeFirstEdit).toBe(2)
  })

  test.each([
    ['claude-mock-projecthooks-default.jsonl', { SessionStart: 1, UserPromptSubmit: 1, PreToolUse: 3, PostToolUse: 1, Stop: 1 }],
    ['claude-mock-projecthooks-user.jsonl', {}], // --setting-sources user: the workspace's hooks do not load
    ['claude-mock-projecthooks-bare.jsonl', {}], // --bare: no hooks
  ])('%s: hooks fired %j', (file, hooks) => {
    expect(classify(file, exited(0)).stream.hooksFired).toEqual(hooks)
  })

  test('a timeout is a measurement at whatever the stream knew (the executor charges the budget cap)', () => {
    const lines = fixture('claude-mock-session.jsonl')
      .split('\n')
      .filter((line) => !line.includes('"type":"result"'))
    const outcome = classifyClaudeRun(parseClaudeStream(lines.join('\n')), killedByTimeout)
    expect(outcome).toEqual({ kind: 'measured', stop: 'timeout', costUsd: 0, tokens: null, turns: null })
  })
})
