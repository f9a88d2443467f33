import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { claudeArgs, claudeEnv, ClaudeCodeAgent, pinnedClaudeBin, SCRIPTED_API_KEY } from '../../../src/agents/claude-code/agent.ts'
import { parseClaudeCodeOptions } from '../../../src/agents/claude-code/options.ts'
import { SpecError } from '../../../src/errors.ts'
import { claudeSpec } from './session-helpers.ts'

describe('the claude command line', () => {
  const options = parseClaudeCodeOptions({})

  test('print mode, stream-json with --verbose (required), hook events, an editing permission mode, the budget cap', () => {
    const args = claudeArgs(claudeSpec({ model: undefined }), options, { budgetUsd: 1.5 }, '/x')
    expect(args).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--include-hook-events', '--permission-mode', 'bypassPermissions', '--max-budget-usd', '1.5'])
  })

  test("model, turn limit, settings file (relative to the experiment), then the spec's own args last", () => {
    const args = claudeArgs(
      claudeSpec({ maxTurns: 30, args: ['--add-dir', 'lib'] }),
      parseClaudeCodeOptions({ settings: 'conf/s.json', settingSources: 'user' }),
      { budgetUsd: 2 },
      '/exp',
    )
    expect(args.join(' ')).toContain('--model claude-sonnet-4-5 --max-turns 30 --setting-sources user --settings /exp/conf/s.json --add-dir lib')
    expect(args.slice(-2)).toEqual(['--add-dir', 'lib'])
  })

  test('setting sources fixed by the run win over the option; [] loads none', () => {
    const opts = parseClaudeCodeOptions({ settingSources: 'user' })
    const none = claudeArgs(claudeSpec(), opts, { budgetUsd: 1, settingSources: [] }, '/x')
    expect(none[none.indexOf('--setting-sources') + 1]).toBe('')
    expect(claudeArgs(claudeSpec(), opts, { budgetUsd: 1, settingSources: ['project', 'local'] }, '/x')).toContain('project,local')
  })
})

describe('the environment', () => {
  test("the harness's allowlist plus only what the adapter needs", () => {
    const env = claudeEnv({ PATH: '/bin', HOME: '/h' }, parseClaudeCodeOptions({}), undefined)
    expect(env).toMatchObject({ PATH: '/bin', HOME: '/h', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' })
    expect(env.ANTHROPIC_BASE_URL).toBeUndefined()
    expect(env.ANTHROPIC_API_KEY).toBeUndefined()
    if (process.getuid?.() === 0) expect(env.IS_SANDBOX).toBe('1')
    expect(claudeEnv({ PATH: '/bin' }, parseClaudeCodeOptions({ permissionMode: 'default' }), undefined).IS_SANDBOX).toBeUndefined()
  })

  test('a scripted run points the CLI at its server', () => {
    expect(claudeEnv({ ANTHROPIC_API_KEY: 'real' }, parseClaudeCodeOptions({}), 'http://127.0.0.1:1234')).toMatchObject({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1234',
      ANTHROPIC_API_KEY: SCRIPTED_API_KEY,
    })
  })
})

describe('options', () => {
  test('scriptedModel: true means the defaults', () => {
    expect(parseClaudeCodeOptions({ scriptedModel: true }).scriptedModel).toEqual({ faults: [], latencyMs: 0, zeroUsage: false })
  })

  test('a misspelt option is an error naming the field', () => {
    expect(() => parseClaudeCodeOptions({ permisionMode: 'x' })).toThrow(SpecError)
    expect(() => parseClaudeCodeOptions({ scriptedModel: { wrongEditRate: 2 } })).toThrow(/agent\.options\.scriptedModel\.wrongEditRate/)
    expect(() => new ClaudeCodeAgent(claudeSpec({ options: { scriptedModel: { faults: [{ fault: { kind: 'boom' } }] } } }), { experimentDir: '/x' })).toThrow(
      /agent\.options\.scriptedModel\.faults\.0\b/,
    )
  })

  test("the pinned CLI is the npm dependency's binary", () => {
    expect(pinnedClaudeBin()).toBe(path.resolve(import.meta.dirname, '../../../node_modules/@anthropic-ai/claude-code/bin/claude.exe'))
  })
})
