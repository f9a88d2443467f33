import path from 'node:path'
import { searchKeywords } from './keywords.ts'
import type { Conversation, ScriptedTask } from './types.ts'

/**
 * What the scripted model does with the skills an agent shows it. Claude Code
 * 2.1 lists the skills it loaded in a `<system-reminder>` before the prompt
 * ("The following skills are available for use with the Skill tool:" then one
 * `- name: description` line each); the project's skills (`.claude/skills/`)
 * appear there only when the setting sources include `project`. Calling the
 * `Skill` tool puts the skill's SKILL.md body into the conversation.
 *
 * The policy loads a listed skill when its name and description share words
 * with the prompt (a real model picks skills by their description), then
 * reads what the skill says: files it names work like any other hint, and a
 * code pattern it names (in backticks) that occurs in the files to change is
 * searched for instead of exploring. Loading a skill is an abstract `read` of
 * its SKILL.md; the Claude Code handler turns that read into a `Skill` call.
 */

/** A skill the context lists, with the workspace file it was installed as. */
export interface ListedSkill {
  readonly name: string
  readonly description: string
  /** The skill's SKILL.md in the workspace (workspace-relative). */
  readonly file: string
}

const LISTING = /The following skills are available for use with the Skill tool:\s*\n([\s\S]*?)(?:<\/system-reminder>|$)/g

/** Shared words that must appear in the prompt and a skill's name or description before the model loads it. */
export const SKILL_RELEVANCE_WORDS = 2

/** The `name: description` lines of every skill listing in the text, in order, each name once. */
export function skillListing(context: string): { name: string; description: string }[] {
  const listed = new Map<string, string>()
  for (const match of context.matchAll(LISTING)) {
    for (const line of match[1]!.split('\n')) {
      const entry = /^- ([\w:.-]+): (.*)$/.exec(line.trim())
      if (entry !== null && !listed.has(entry[1]!)) listed.set(entry[1]!, entry[2]!)
    }
  }
  return [...listed].map(([name, description]) => ({ name, description }))
}

/** The workspace file of a skill named `name`: `<…>/skills/<name>/SKILL.md` (undefined for the CLI's built-in skills). */
export function skillFile(name: string, files: readonly string[]): string | undefined {
  return files.find((file) => file.endsWith(`skills/${name}/SKILL.md`) && path.posix.basename(path.posix.dirname(file)) === name)
}

/** Whether a path is a skill's SKILL.md under `.claude/skills/`: the skill's name, else null. */
export function claudeSkillName(file: string): string | null {
  return /(?:^|\/)\.claude\/skills\/([^/]+)\/SKILL\.md$/.exec(file)?.[1] ?? null
}

function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z][a-z0-9]{3,}/g) ?? []).map((word) => word.replace(/s$/, '')))
}

/**
 * The listed skills the model loads for this task, in listing order: those
 * installed in the workspace whose name and description share at least
 * `SKILL_RELEVANCE_WORDS` words with the prompt's search keywords.
 */
export function skillsToLoad(context: string, task: ScriptedTask): ListedSkill[] {
  const keywords = words(searchKeywords(task.prompt).join(' '))
  const chosen: ListedSkill[] = []
  for (const { name, description } of skillListing(context)) {
    const file = skillFile(name, task.files)
    if (file === undefined) continue
    const shared = [...words(`${name.replace(/[-_:]/g, ' ')} ${description}`)].filter((word) => keywords.has(word))
    if (shared.length >= SKILL_RELEVANCE_WORDS) chosen.push({ name, description, file })
  }
  return chosen
}

/**
 * What the first `loads` tool calls brought back: every text of the user
 * messages that follow them (tool results and the skill bodies the CLI
 * injects), up to the model's next tool call.
 */
export function loadedSkillText(conversation: Conversation, loads: number): string {
  if (loads === 0) return ''
  const parts: string[] = []
  let calls = 0
  for (const message of conversation.messages) {
    if (message.role === 'assistant') {
      calls += message.parts.filter((part) => part.type === 'tool-call').length
      if (calls > loads) break
      continue
    }
    if (calls === 0) continue
    for (const part of message.parts) {
      if (part.type === 'text') parts.push(part.text)
      else if (part.type === 'tool-result') parts.push(part.text)
    }
  }
  return parts.join('\n')
}

/**
 * Code patterns a loaded skill names (in backticks) that occur in every file
 * the fix changes: searching for one finds the place to fix.
 */
export function skillLeads(text: string, task: ScriptedTask): string[] {
  const contents = task.edits.flatMap((edit) => (edit.before === null ? [] : [edit.before]))
  if (contents.length === 0) return []
  const spans = [...text.matchAll(/`([^`\n]{3,60})`/g)].map((match) => match[1]!.trim())
  return [...new Set(spans)].filter((span) => span.length >= 3 && contents.every((content) => content.includes(span)))
}
