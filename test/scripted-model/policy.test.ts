import { describe, expect, test } from 'vitest'
import { searchKeywords } from '../../src/scripted-model/keywords.ts'
import { contextHints, initialContext, nextTurn, planSession } from '../../src/scripted-model/policy.ts'
import type { Conversation, ScriptedTask } from '../../src/scripted-model/types.ts'

const task: ScriptedTask = {
  id: '004-parse-dates',
  prompt: 'Calling parseDate("2024-02-30") returns a date in March; it should throw a RangeError instead.',
  files: ['README.md', 'package.json', 'src/dates.js', 'src/format.js', 'src/index.js', 'src/strings.js', 'test/dates.test.js', '.claude/settings.json'],
  edits: [
    {
      path: 'src/dates.js',
      before: 'export function parseDate(text) {\n  return new Date(text)\n}\n',
      after: 'export function parseDate(text) {\n  const date = new Date(text)\n  if (Number.isNaN(date.getTime())) throw new RangeError(text)\n  return date\n}\n',
    },
  ],
}

const noHints = { goldNamed: [], otherNamed: [] }
const kinds = (turns: ReturnType<typeof planSession>) => turns.map((turn) => turn.action.kind)

function conversation(userText: string, assistantToolCalls = 0, system = ''): Conversation {
  const messages: Conversation['messages'][number][] = [{ role: 'user', parts: [{ type: 'text', text: userText }] }]
  for (let i = 0; i < assistantToolCalls; i++) {
    messages.push({
      role: 'assistant',
      parts: [
        { type: 'text', text: '…' },
        { type: 'tool-call', id: `t${i}`, name: 'Read', input: {} },
      ],
    })
    messages.push({ role: 'user', parts: [{ type: 'tool-result', callId: `t${i}`, text: 'src/dates.js mentioned in a tool result', isError: false }] })
  }
  return { system, messages, tools: ['Bash', 'Read', 'Edit'], kind: 'agent' }
}

describe('planSession', () => {
  test('without a hint: list, search, read other files, read the file, edit it, finish', () => {
    const plan = planSession(task, 1, noHints, { wrongEditRate: 0 })
    const actions = kinds(plan)
    expect(actions[0]).toBe('list')
    expect(actions.filter((kind) => kind === 'search').length).toBeGreaterThanOrEqual(1)
    expect(actions.at(-1)).toBe('finish')
    const edit = plan.findIndex((turn) => turn.action.kind === 'edit')
    expect(plan[edit - 1]!.action).toEqual({ kind: 'read', path: 'src/dates.js' }) // read before editing (Claude Code requires it)
    expect(plan[edit]!.action).toMatchObject({ kind: 'edit', path: 'src/dates.js', wrong: false })
  })

  test('told where the fix is: no listing, no search, straight to the file', () => {
    const plan = planSession(task, 1, { goldNamed: ['src/dates.js'], otherNamed: [] }, { wrongEditRate: 0, hintedDecoyRate: 0 })
    expect(kinds(plan)).toEqual(['read', 'edit', 'finish'])
  })

  test('a wrong hint costs a read', () => {
    const plan = planSession(task, 1, { goldNamed: ['src/dates.js'], otherNamed: ['src/format.js'] }, { wrongEditRate: 0, hintedDecoyRate: 0 })
    expect(plan.map((turn) => turn.action)).toMatchObject([{ kind: 'read', path: 'src/format.js' }, { kind: 'read', path: 'src/dates.js' }, { kind: 'edit' }, { kind: 'finish' }])
  })

  test('the same seed plays the same session; seeds differ', () => {
    expect(planSession(task, 5, noHints)).toEqual(planSession(task, 5, noHints))
    const sessions = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((seed) => JSON.stringify(kinds(planSession(task, seed, noHints)))))
    expect(sessions.size).toBeGreaterThan(1)
  })

  test('arms of one seed stay paired: the wrong-edit draw does not depend on the hint', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const wrong = (plan: ReturnType<typeof planSession>) => plan.some((turn) => turn.action.kind === 'edit' && turn.action.wrong)
      expect(wrong(planSession(task, seed, noHints))).toBe(wrong(planSession(task, seed, { goldNamed: ['src/dates.js'], otherNamed: [] })))
    }
  })

  test('sometimes a wrong edit: the file changes, the fix is not made, and nothing else is edited', () => {
    const plan = planSession(task, 1, noHints, { wrongEditRate: 1 })
    const edits = plan.filter((turn) => turn.action.kind === 'edit')
    expect(edits).toHaveLength(1)
    const edit = edits[0]!.action as Extract<(typeof plan)[number]['action'], { kind: 'edit' }>
    expect(edit.wrong).toBe(true)
    expect(edit.after).not.toBe(task.edits[0]!.after)
    expect(edit.after).not.toBe(edit.before)
    expect(edit.before.replace(edit.oldString, edit.newString)).toBe(edit.after)
  })

  test('the wrong-edit rate is honoured over many seeds', () => {
    const wrong = Array.from({ length: 400 }, (_, seed) => planSession(task, seed, noHints, { wrongEditRate: 0.25 })).filter((plan) =>
      plan.some((turn) => turn.action.kind === 'edit' && turn.action.wrong),
    ).length
    expect(wrong / 400).toBeGreaterThan(0.18)
    expect(wrong / 400).toBeLessThan(0.32)
  })

  test('hidden and dependency folders are never explored', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const reads = planSession(task, seed, noHints, { decoyReads: [5, 5] }).flatMap((turn) => (turn.action.kind === 'read' ? [turn.action.path] : []))
      expect(reads.some((file) => file.startsWith('.'))).toBe(false)
    }
  })

  test('a task with no known fix: explore, then finish without editing', () => {
    const plan = planSession({ ...task, edits: [] }, 1, noHints)
    expect(kinds(plan)).not.toContain('edit')
    expect(kinds(plan).at(-1)).toBe('finish')
  })

  test('a new file is written whole; a removed one deleted', () => {
    const plan = planSession(
      {
        ...task,
        edits: [
          { path: 'src/new.js', before: null, after: 'x\n' },
          { path: 'src/strings.js', before: 'y\n', after: null },
        ],
      },
      1,
      noHints,
      { wrongEditRate: 0 },
    )
    expect(plan.map((turn) => turn.action)).toEqual(
      expect.arrayContaining([
        { kind: 'write', path: 'src/new.js', content: 'x\n', wrong: false },
        { kind: 'delete', path: 'src/strings.js' },
      ]),
    )
  })
})

describe('what the model is shown', () => {
  test('a file of the fix named by path or distinctive basename counts; a tool result does not', () => {
    expect(contextHints('Likely files: src/dates.js', task).goldNamed).toEqual(['src/dates.js'])
    expect(contextHints('see dates.js', task).goldNamed).toEqual(['src/dates.js'])
    expect(contextHints('see mydates.js.bak', task).goldNamed).toEqual([])
    expect(initialContext(conversation('fix it', 2))).not.toContain('src/dates.js')
  })

  test('only the context before the first answer shapes the plan: the step is the number of tool calls made', () => {
    const plain = conversation(task.prompt)
    const hinted = conversation(`${task.prompt}\n<system-reminder>UserPromptSubmit hook additional context: src/dates.js</system-reminder>`)
    expect(nextTurn(plain, task, 2).action.kind).toBe('list')
    expect(nextTurn(hinted, task, 2, { hintedDecoyRate: 0 }).action).toEqual({ kind: 'read', path: 'src/dates.js' })
    const plan = planSession(task, 2, noHints)
    expect(nextTurn(conversation(task.prompt, 3), task, 2)).toEqual(plan[3])
    // Past the end of its plan the model keeps finishing.
    expect(nextTurn(conversation(task.prompt, 50), task, 2).action.kind).toBe('finish')
  })

  test('the system prompt counts as context (Gemini and Codex put GEMINI.md / AGENTS.md there)', () => {
    expect(nextTurn(conversation(task.prompt, 0, 'Project notes: parsing lives in src/dates.js'), task, 2, { hintedDecoyRate: 0 }).action).toEqual({
      kind: 'read',
      path: 'src/dates.js',
    })
  })

  test('auxiliary requests get text, or JSON matching the schema asked for', () => {
    const aux: Conversation = {
      system: '',
      messages: [],
      tools: [],
      kind: 'auxiliary',
      responseSchema: { type: 'object', properties: { title: { type: 'string' }, done: { type: 'boolean' } } },
    }
    const turn = nextTurn(aux, task, 1)
    expect(turn.action.kind).toBe('finish')
    expect(JSON.parse(turn.text)).toEqual({ title: expect.any(String), done: false })
  })

  test('search keywords come from the prompt, identifiers first', () => {
    expect(searchKeywords(task.prompt).slice(0, 2)).toEqual(['RangeError', 'parseDate'])
  })
})
