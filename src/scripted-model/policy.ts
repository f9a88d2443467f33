import path from 'node:path'
import seedrandom from 'seedrandom'
import { minimalReplacement, wrongReplacement } from './edit.ts'
import { searchKeywords } from './keywords.ts'
import { loadedSkillText, skillLeads, skillsToLoad } from './skills.ts'
import type { Action, Conversation, GoldEdit, ModelTurn, ScriptedTask } from './types.ts'
import { shuffleWith } from '../shared/seeded-shuffle.ts'

/**
 * The scripted model's policy: protocol-agnostic and pure. Given what the
 * model has been shown and the run's seed, it chooses the next move of a
 * plausible bug-fixing session: explore (list, search, read), edit the files
 * the reference fix changes (sometimes wrongly), finish.
 *
 * What it is shown changes what it does: a file of the fix named in the
 * context it starts with (a `CLAUDE.md`, a hook's additional context, the
 * system prompt) is read directly instead of being searched for, so a context
 * tool saves turns and tokens the way it would with a real model; a file named
 * wrongly is read for nothing. Random choices come from seedrandom seeded by
 * the task and the run's seed, drawn in the same order whatever the context,
 * so two arms of one seed differ only by what the context changed.
 *
 * Skills the agent lists (see skills.ts) are loaded first when their
 * description matches the prompt; what a loaded skill says (a file, a code
 * pattern to search for) then guides the session like any other hint.
 */

/** Tunables of the policy (all optional). */
export interface PolicyOptions {
  /** Chance that the run makes a wrong edit instead of the fix (default 0.15). */
  readonly wrongEditRate?: number
  /** Content searches when a file to change is not known: [min, max] (default [1, 2]). */
  readonly searches?: readonly [number, number]
  /** Other files read when a file to change is not known: [min, max] (default [1, 3]). */
  readonly decoyReads?: readonly [number, number]
  /** Chance that a run told where to look still reads one other file (default 0.25). */
  readonly hintedDecoyRate?: number
}

/** What the context a session starts with says about the task's files. */
export interface ContextHints {
  /** Files of the fix the context names. */
  readonly goldNamed: readonly string[]
  /** Other files of the workspace the context names (by a path with a folder; hidden files left out). */
  readonly otherNamed: readonly string[]
  /** Code patterns a loaded skill names that occur in every file to change: one search finds them. */
  readonly leads?: readonly string[]
}

const GENERIC_BASENAMES = new Set(['index.js', 'index.ts', 'main.py', '__init__.py', 'readme.md', 'package.json', 'claude.md', 'agents.md', 'gemini.md', 'makefile'])

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function mentions(text: string, token: string): boolean {
  return new RegExp(`(^|[^\\w.-])${escapeRegExp(token)}($|[^\\w-])`).test(text)
}

/** The text a session starts with: the system prompt and every user text before the model's first answer. */
export function initialContext(conversation: Conversation): string {
  const parts: string[] = [conversation.system]
  for (const message of conversation.messages) {
    if (message.role === 'assistant') break
    for (const part of message.parts) if (part.type === 'text') parts.push(part.text)
  }
  return parts.join('\n')
}

/** Which of the task's files the context names. Fix files count by path, or by a distinctive, unique basename. */
export function contextHints(context: string, task: ScriptedTask): ContextHints {
  const gold = new Set(task.edits.map((edit) => edit.path))
  const basenameCount = new Map<string, number>()
  for (const file of task.files) basenameCount.set(path.posix.basename(file), (basenameCount.get(path.posix.basename(file)) ?? 0) + 1)
  const goldNamed = [...gold].filter((file) => {
    if (mentions(context, file)) return true
    const base = path.posix.basename(file)
    return (basenameCount.get(base) ?? 1) === 1 && !GENERIC_BASENAMES.has(base.toLowerCase()) && mentions(context, base)
  })
  const otherNamed = task.files.filter((file) => !gold.has(file) && file.includes('/') && isExplorable(file) && mentions(context, file))
  return { goldNamed, otherNamed }
}

function between(random: () => number, [min, max]: readonly [number, number]): number {
  return min + Math.floor(random() * (max - min + 1))
}

function isExplorable(file: string): boolean {
  return !file.split('/').some((segment) => segment.startsWith('.') || segment === 'node_modules')
}

function editActions(edit: GoldEdit, wrong: boolean): Action | null {
  if (edit.before === null) return edit.after === null ? null : { kind: 'write', path: edit.path, content: edit.after, wrong: false }
  if (edit.after === null) return { kind: 'delete', path: edit.path }
  const replacement = wrong ? wrongReplacement(edit.path, edit.before, edit.after) : minimalReplacement(edit.before, edit.after)
  if (replacement === null) return null
  const after = wrong ? edit.before.replace(replacement.oldString, () => replacement.newString) : edit.after
  return { kind: 'edit', path: edit.path, ...replacement, before: edit.before, after, wrong }
}

function narrate(action: Action): string {
  switch (action.kind) {
    case 'list':
      return 'Let me look at how the project is laid out.'
    case 'search':
      return `I'll search the code for "${action.pattern}" to find where this is handled.`
    case 'read':
      return `Let me read ${action.path}.`
    case 'edit':
      return action.wrong ? `The problem seems to be in ${action.path}; I'll mark the case there.` : `Found it: the bug is in ${action.path}. I'll fix it.`
    case 'write':
      return `I'll write ${action.path}.`
    case 'delete':
      return `${action.path} is no longer needed; removing it.`
    case 'finish':
      return 'Done.'
  }
}

/**
 * The whole session the policy would play given what the context names: every
 * tool-using turn in order, then the finishing turn.
 */
export function planSession(task: ScriptedTask, seed: number, hints: ContextHints, options: PolicyOptions = {}): ModelTurn[] {
  const random = seedrandom(`scripted-model:${task.id}:${seed}`)
  // Every draw happens whatever the hints, in the same order: arms of one seed stay paired.
  const wrong = random() < (options.wrongEditRate ?? 0.15)
  const searchCount = between(random, options.searches ?? [1, 2])
  const decoyCount = between(random, options.decoyReads ?? [1, 3])
  const hintedDecoy = random() < (options.hintedDecoyRate ?? 0.25)
  const keywords = searchKeywords(task.prompt)
  const keywordOrder = shuffleWith(keywords.slice(0, 4), random)
  const gold = task.edits.map((edit) => edit.path)
  const extensions = new Set(gold.map((file) => path.posix.extname(file)))
  const candidates = task.files.filter((file) => !gold.includes(file) && isExplorable(file))
  const decoys = [
    ...shuffleWith(
      candidates.filter((file) => extensions.has(path.posix.extname(file))),
      random,
    ),
    ...shuffleWith(
      candidates.filter((file) => !extensions.has(path.posix.extname(file))),
      random,
    ),
  ]

  const actions: Action[] = []
  const read = new Set<string>()
  const readFile = (file: string) => {
    if (read.has(file)) return
    read.add(file)
    actions.push({ kind: 'read', path: file })
  }
  for (const file of hints.otherNamed.slice(0, 3)) readFile(file)
  const unknown = gold.filter((file) => !hints.goldNamed.includes(file))
  const lead = hints.leads?.[0]
  if (unknown.length > 0 && lead !== undefined) {
    // A loaded skill named the code to look for: one search, then straight to the files it finds.
    actions.push({ kind: 'search', pattern: lead })
  } else if (unknown.length > 0 || gold.length === 0) {
    actions.push({ kind: 'list', dir: '.' })
    for (const pattern of keywordOrder.slice(0, searchCount)) actions.push({ kind: 'search', pattern })
    for (const file of decoys.filter((file) => !read.has(file)).slice(0, decoyCount)) readFile(file)
  } else if (hintedDecoy) {
    const decoy = decoys.find((file) => !read.has(file))
    if (decoy !== undefined) readFile(decoy)
  }
  for (const edit of task.edits) if (edit.before !== null) readFile(edit.path)
  let editedWrongly = false
  for (const edit of task.edits) {
    const action = !editedWrongly && wrong ? (editActions(edit, true) ?? editActions(edit, false)) : editActions(edit, false)
    if (action === null) continue
    actions.push(action)
    if ((action.kind === 'edit' || action.kind === 'write') && action.wrong) {
      editedWrongly = true
      break
    }
  }
  const changed = actions.filter((action) => action.kind === 'edit' || action.kind === 'write' || action.kind === 'delete').map((action) => (action as { path: string }).path)
  const finish: ModelTurn = {
    text: changed.length === 0 ? 'I looked through the code but did not find anything to change.' : `I changed ${changed.join(', ')}. That should fix the problem described.`,
    action: { kind: 'finish' },
  }
  return [...actions.map((action) => ({ text: narrate(action), action })), finish]
}

/** The answer to a CLI's side request (a title, a summary): text, or JSON when a schema asks for it. */
export function auxiliaryAnswer(conversation: Conversation): string {
  const schema = conversation.responseSchema as { properties?: Record<string, { type?: string }> } | undefined
  if (schema?.properties === undefined) return 'Scripted model session'
  const value = Object.fromEntries(
    Object.entries(schema.properties).map(([key, property]) => [
      key,
      property.type === 'boolean' ? false : property.type === 'number' || property.type === 'integer' ? 0 : property.type === 'array' ? [] : 'Scripted model session',
    ]),
  )
  return JSON.stringify(value)
}

/** How many tool calls the model has made so far in the conversation. */
export function toolCallsSoFar(conversation: Conversation): number {
  return conversation.messages.filter((message) => message.role === 'assistant').reduce((sum, message) => sum + message.parts.filter((part) => part.type === 'tool-call').length, 0)
}

/**
 * The policy's next turn for a request. The session's plan is a function of
 * the task, the seed, the context the session started with and the bodies of
 * the skills it loaded first; the step is the number of tool calls already
 * made, so the server keeps no state.
 */
export function nextTurn(conversation: Conversation, task: ScriptedTask, seed: number, options: PolicyOptions = {}): ModelTurn {
  if (conversation.kind === 'auxiliary') return { text: auxiliaryAnswer(conversation), action: { kind: 'finish' } }
  const context = initialContext(conversation)
  // Skills first (Claude Code asks for them before anything else); their bodies join the context once loaded.
  const loads = skillsToLoad(context, task)
  const loaded = loadedSkillText(conversation, loads.length)
  const hints = contextHints(loaded === '' ? context : `${context}\n${loaded}`, task)
  const leads = skillLeads(loaded, task)
  const plan = [
    ...loads.map((skill): ModelTurn => ({ text: `The ${skill.name} skill matches this task; loading it.`, action: { kind: 'read', path: skill.file } })),
    ...planSession(task, seed, leads.length === 0 ? hints : { ...hints, leads }, options),
  ]
  const step = toolCallsSoFar(conversation)
  return plan[Math.min(step, plan.length - 1)]!
}
