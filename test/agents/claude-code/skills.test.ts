import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ClaudeCodeAgent } from '../../../src/agents/claude-code/agent.ts'
import type { AgentRunResult } from '../../../src/agents/types.ts'
import { claudeSpec, GREET_AFTER, makeSandbox, put, type Sandbox } from './session-helpers.ts'

// What a skill does, for real: a SKILL.md in the workspace's `.claude/skills/`
// is listed to the model by the real Claude Code CLI when its setting sources
// include `project`; the scripted model loads it with the CLI's `Skill` tool
// when its description matches the prompt, and follows what the CLI then
// shows it of the skill. Same task, same seed, one workspace per condition.

const RELEVANT = `---
name: greeting-style
description: How greetings are worded - punctuation such as the exclamation mark that ends a greeting.
---
# Greeting style

Every greeting text is built in src/greet.js; it ends with an exclamation mark.
`
const PATTERN = `---
name: greeting-style
description: How greetings are worded - punctuation such as the exclamation mark that ends a greeting.
---
# Greeting style

Greetings are template literals that start with \`Hello, \${\`: put the punctuation inside the template.
`
const IRRELEVANT = `---
name: bdi-mental-states
description: Model an agent's beliefs, desires and intentions (BDI) - represent mental states and derive plans from them.
---
# BDI mental states

Beliefs, desires, intentions.
`

let sandbox: Sandbox
let control: AgentRunResult
beforeAll(async () => {
  sandbox = await makeSandbox()
  control = await runCondition('control', {}, [])
})
afterAll(async () => {
  await sandbox.dispose()
})

/** One session in a fresh workspace holding `skills`, with the condition's setting sources. */
async function runCondition(name: string, skills: Record<string, string>, settingSources: string[]): Promise<AgentRunResult & { transcript: string; workspace: string }> {
  const workspace = await sandbox.workspace(name)
  for (const [skill, content] of Object.entries(skills)) await put(workspace, `.claude/skills/${skill}/SKILL.md`, content)
  const agent = new ClaudeCodeAgent(claudeSpec({ options: { scriptedModel: { wrongEditRate: 0, hintedDecoyRate: 0 } } }), { experimentDir: sandbox.dir })
  const request = await sandbox.request(workspace, { seed: 3, settingSources })
  const result = await agent.run(request)
  return { ...result, transcript: await readFile(request.transcriptPath, 'utf8'), workspace }
}

/** The tool calls of a transcript, in order, by name. */
function toolNames(transcript: string): string[] {
  return transcript
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; message?: { content?: { type: string; name?: string }[] } })
    .filter((event) => event.type === 'assistant')
    .flatMap((event) => (event.message?.content ?? []).filter((block) => block.type === 'tool_use').map((block) => block.name!))
}

describe('the scripted model reacts to skills, through the real CLI', () => {
  test('control (no skills, no setting sources): it explores before the first edit', () => {
    expect(control.stop).toBe('completed')
    expect(control.toolCallsBeforeFirstEdit).toBeGreaterThanOrEqual(4) // list, search, another file, the file itself
  })

  test('the target skill names the file: it is loaded with the Skill tool, and exploration, turns and cost drop', async () => {
    const target = await runCondition('target', { 'greeting-style': RELEVANT }, ['project'])
    expect(target.stop).toBe('completed')
    // Skill, then bin/cli.js (the prompt names it), then src/greet.js: no listing, no search.
    expect(toolNames(target.transcript).slice(0, 4)).toEqual(['Skill', 'Read', 'Read', 'Edit'])
    expect(target.transcript).toContain('Every greeting text is built in src/greet.js') // the CLI injected the skill's body
    expect(target.toolCallsBeforeFirstEdit).toBe(3)
    expect(target.toolCalls!).toBeLessThan(control.toolCalls!)
    expect(target.turns!).toBeLessThan(control.turns!)
    expect(target.costUsd).toBeLessThan(control.costUsd)
    expect(await readFile(path.join(target.workspace, 'src/greet.js'), 'utf8')).toBe(GREET_AFTER)
  })

  test('a skill naming the kind of fix (a code pattern): one search replaces the exploration', async () => {
    const pattern = await runCondition('pattern', { 'greeting-style': PATTERN }, ['project'])
    expect(toolNames(pattern.transcript).slice(0, 5)).toEqual(['Skill', 'Read', 'Bash', 'Read', 'Edit'])
    expect(pattern.transcript).toContain('grep -rn')
    expect(pattern.toolCallsBeforeFirstEdit).toBeLessThan(control.toolCallsBeforeFirstEdit!)
    expect(pattern.costUsd).toBeLessThan(control.costUsd)
  })

  test('an irrelevant skill is listed but not loaded: the same session, a little more context', async () => {
    const negative = await runCondition('negative', { 'bdi-mental-states': IRRELEVANT }, ['project'])
    expect(negative.transcript).toContain('"bdi-mental-states"') // the CLI's init event lists it
    expect(toolNames(negative.transcript)).not.toContain('Skill')
    expect(negative.toolCalls).toBe(control.toolCalls)
    expect(negative.turns).toBe(control.turns)
    expect(negative.costUsd).toBeGreaterThan(control.costUsd) // the listing line is billed on every request
    expect(negative.costUsd).toBeLessThan(control.costUsd * 1.02)
  })

  test('setting sources []: the target skill sits in the workspace but is never shown, so nothing changes', async () => {
    const hidden = await runCondition('hidden', { 'greeting-style': RELEVANT }, [])
    expect(hidden.transcript).not.toContain('"greeting-style"')
    expect(toolNames(hidden.transcript)).not.toContain('Skill')
    expect(hidden.toolCallsBeforeFirstEdit).toBe(control.toolCallsBeforeFirstEdit)
    expect(hidden.turns).toBe(control.turns)
  })
})
