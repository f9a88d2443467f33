import { describe, expect, test } from 'vitest'
import { claudeToolCall } from '../../src/scripted-model/anthropic.ts'
import { contextHints, nextTurn, planSession } from '../../src/scripted-model/policy.ts'
import { claudeSkillName, loadedSkillText, skillLeads, skillListing, skillsToLoad } from '../../src/scripted-model/skills.ts'
import type { Conversation, ConversationMessage, ScriptedTask } from '../../src/scripted-model/types.ts'

// The skill listing as Claude Code 2.1.197 sends it (a user text before the
// prompt; captured from the real CLI with `.claude/skills/csv-parsing/SKILL.md`
// and `--setting-sources project`, trimmed to two of its built-in skills).
const LISTING = `<system-reminder>
The following skills are available for use with the Skill tool:

- csv-parsing: Reading CSV files - quoted fields that contain commas, doubled quotes, header rows.
- bdi-mental-states: Model an agent's beliefs, desires and intentions (BDI) - represent mental states and derive plans from them.
- verify: Verify that a code change actually does what it's supposed to by running the app and observing behavior. Use when asked to verify a PR, confirm a fix works.
- claude-api: Reference for the Claude API / Anthropic SDK — model ids, pricing, params, streaming, tool use, MCP, agents, caching, token counting, model migration.
TRIGGER — read BEFORE opening the target file; whenever: the prompt names Claude/Anthropic in any form
</system-reminder>
`

const CSV_BEFORE = "function splitLine(line) {\n  return line.split(',')\n}\nmodule.exports = { splitLine }\n"
const task: ScriptedTask = {
  id: '001-quoted-fields',
  prompt: '`node bin/report.js data/sample.csv` cuts a quoted description that contains a comma in two. Quoted fields must stay whole.',
  files: [
    '.claude/skills/bdi-mental-states/SKILL.md',
    '.claude/skills/csv-parsing/SKILL.md',
    'bin/report.js',
    'data/sample.csv',
    'lib/csv.js',
    'lib/format.js',
    'lib/summary.js',
    'package.json',
  ],
  edits: [{ path: 'lib/csv.js', before: CSV_BEFORE, after: CSV_BEFORE.replace("line.split(',')", 'splitQuoted(line)') }],
}

/** A Claude Code conversation: the listing and the prompt, then the model's tool calls each answered by `results`. */
function conversation(listing: string, calls: readonly { name: string; result: ConversationMessage['parts'] }[] = []): Conversation {
  const messages: ConversationMessage[] = [
    {
      role: 'user',
      parts: [
        { type: 'text', text: listing },
        { type: 'text', text: task.prompt },
      ],
    },
  ]
  calls.forEach((call, i) => {
    messages.push({
      role: 'assistant',
      parts: [
        { type: 'text', text: '…' },
        { type: 'tool-call', id: `t${i}`, name: call.name, input: {} },
      ],
    })
    messages.push({ role: 'user', parts: call.result })
  })
  return { system: 'You are Claude Code.', messages, tools: ['Bash', 'Read', 'Edit', 'Skill'], kind: 'agent' }
}

/** What the CLI sends back after a `Skill` call: the tool result, then the SKILL.md body as a user text. */
function skillResult(name: string, body: string): ConversationMessage['parts'] {
  return [
    { type: 'tool-result', callId: 'skill', text: `Launching skill: ${name}`, isError: false },
    { type: 'text', text: `Base directory for this skill: /ws/.claude/skills/${name}\n\n${body}` },
  ]
}

describe('what the model sees of skills', () => {
  test('the listing gives each skill once, with its one-line description', () => {
    const listed = skillListing(`${LISTING}\n${LISTING}`)
    expect(listed.map((skill) => skill.name)).toEqual(['csv-parsing', 'bdi-mental-states', 'verify', 'claude-api'])
    expect(listed[0]!.description).toBe('Reading CSV files - quoted fields that contain commas, doubled quotes, header rows.')
  })

  test('it loads a workspace skill whose description shares words with the prompt, and no other', () => {
    expect(skillsToLoad(LISTING, task)).toEqual([{ name: 'csv-parsing', description: expect.any(String), file: '.claude/skills/csv-parsing/SKILL.md' }])
  })

  test("a skill that is not installed in the workspace (the CLI's built-in ones) is never loaded", () => {
    const prompt = 'Verify that the code change actually works by running the app.'
    expect(skillsToLoad(LISTING, { ...task, prompt })).toEqual([])
  })

  test('no listing (setting sources without `project`), or one word in common, loads nothing', () => {
    expect(skillsToLoad(task.prompt, task)).toEqual([])
    expect(skillsToLoad(LISTING, { ...task, prompt: 'The header is wrong.' })).toEqual([])
  })

  test("a loaded skill's body is what came back before the next tool call", () => {
    const loaded = conversation(LISTING, [
      { name: 'Skill', result: skillResult('csv-parsing', 'The splitter is lib/csv.js.') },
      { name: 'Read', result: [{ type: 'tool-result', callId: 'r', text: 'see lib/format.js', isError: false }] },
    ])
    expect(loadedSkillText(loaded, 1)).toBe('Launching skill: csv-parsing\nBase directory for this skill: /ws/.claude/skills/csv-parsing\n\nThe splitter is lib/csv.js.')
    expect(loadedSkillText(loaded, 0)).toBe('')
  })

  test('code a skill names in backticks is a lead only when every file to change holds it', () => {
    expect(skillLeads("Never split with `line.split(',')`; see `readRows`.", task)).toEqual(["line.split(',')"])
    expect(skillLeads('Use `Intl.DateTimeFormat`.', task)).toEqual([])
  })

  test('Claude Code loads a skill with the Skill tool; other files are read', () => {
    expect(claudeSkillName('.claude/skills/csv-parsing/SKILL.md')).toBe('csv-parsing')
    expect(claudeToolCall({ kind: 'read', path: '.claude/skills/csv-parsing/SKILL.md' }, ['Read', 'Skill'], '/ws')).toEqual({ name: 'Skill', input: { skill: 'csv-parsing' } })
    expect(claudeToolCall({ kind: 'read', path: '.claude/skills/csv-parsing/SKILL.md' }, ['Read'], '/ws')).toEqual({
      name: 'Read',
      input: { file_path: '/ws/.claude/skills/csv-parsing/SKILL.md' },
    })
    expect(claudeToolCall({ kind: 'read', path: 'lib/csv.js' }, ['Read', 'Skill'], '/ws')).toEqual({ name: 'Read', input: { file_path: '/ws/lib/csv.js' } })
  })
})

describe('what the model does with a skill', () => {
  const options = { wrongEditRate: 0, hintedDecoyRate: 0 }
  const play = (bodies: Record<string, string>, listing = LISTING) => {
    const calls: { name: string; result: ConversationMessage['parts'] }[] = []
    const actions = []
    for (let step = 0; step < 20; step++) {
      const turn = nextTurn(conversation(listing, calls), task, 4, options)
      actions.push(turn.action)
      if (turn.action.kind === 'finish') break
      const skill = turn.action.kind === 'read' ? claudeSkillName(turn.action.path) : null
      calls.push(
        skill === null
          ? { name: 'Read', result: [{ type: 'tool-result', callId: 'x', text: 'ok', isError: false }] }
          : { name: 'Skill', result: skillResult(skill, bodies[skill] ?? '') },
      )
    }
    return actions
  }

  test('a skill naming the file to change: load it, then straight there', () => {
    const actions = play({ 'csv-parsing': 'Every CSV line is split in lib/csv.js.' })
    expect(actions.map((action) => action.kind)).toEqual(['read', 'read', 'read', 'read', 'edit', 'finish'])
    expect(actions.slice(0, 4)).toEqual([
      { kind: 'read', path: '.claude/skills/csv-parsing/SKILL.md' },
      { kind: 'read', path: 'bin/report.js' }, // the prompt names these two
      { kind: 'read', path: 'data/sample.csv' },
      { kind: 'read', path: 'lib/csv.js' },
    ])
  })

  test('a skill naming the kind of fix (a code pattern): one search instead of exploring', () => {
    const actions = play({ 'csv-parsing': "Never split a line with `line.split(',')`." })
    expect(actions.slice(0, 5)).toEqual([
      { kind: 'read', path: '.claude/skills/csv-parsing/SKILL.md' },
      { kind: 'read', path: 'bin/report.js' },
      { kind: 'read', path: 'data/sample.csv' },
      { kind: 'search', pattern: "line.split(',')" },
      { kind: 'read', path: 'lib/csv.js' },
    ])
  })

  test('a loaded skill that names nothing useful costs its turn, then the session explores as without it', () => {
    const withSkill = play({ 'csv-parsing': 'Be careful with CSV.' })
    const withoutSkill = planSession(task, 4, contextHints(task.prompt, task), options).map((turn) => turn.action)
    expect(withSkill[0]).toEqual({ kind: 'read', path: '.claude/skills/csv-parsing/SKILL.md' })
    expect(withSkill.slice(1)).toEqual(withoutSkill)
  })

  test('an irrelevant skill is listed but never loaded: the session is the one without skills', () => {
    const irrelevantOnly = LISTING.replace(/^- csv-parsing:.*\n/m, '')
    const withoutSkills = play({}, task.prompt)
    expect(play({}, irrelevantOnly)).toEqual(withoutSkills)
    expect(withoutSkills.map((action) => action.kind)).toContain('list')
  })
})
