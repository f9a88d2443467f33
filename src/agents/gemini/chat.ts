import path from 'node:path'
import type { Tokens } from '../usage.ts'

/**
 * The Gemini CLI's own record of a session:
 * `~/.gemini/tmp/<project>/chats/session-<time>-<first 8 of the session id>.jsonl`,
 * an append log in which each model response is a `type: "gemini"` message
 * with its `tokens` (thoughts included), re-appended when updated. It gives
 * the number of model responses (turns) and each one's usage, which the
 * stream's totals do not. Its format is the CLI's internal one, so everything
 * read from it is optional.
 */

/** What the chat record adds to the stream. */
export interface GeminiChat {
  readonly file: string
  /** Usage of each model response of the main conversation, in order. */
  readonly requests: readonly Tokens[]
  readonly text: string
}

interface ChatTokens {
  readonly input?: number
  readonly output?: number
  readonly cached?: number
  readonly thoughts?: number
  readonly tool?: number
}

/** Our tokens from one response's record: prompt without the cached part (tool-use prompt added), output with thoughts. */
export function chatTokens(tokens: ChatTokens): Tokens {
  const cached = tokens.cached ?? 0
  return {
    input: Math.max(0, (tokens.input ?? 0) - cached) + (tokens.tool ?? 0),
    output: (tokens.output ?? 0) + (tokens.thoughts ?? 0),
    cacheRead: cached,
    cacheWrite: 0,
  }
}

/** Parses a chat record: the last version of each model message, in order of first appearance. */
export function parseChat(text: string, file: string): GeminiChat {
  const responses = new Map<string, Tokens>()
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    let record: { id?: string; type?: string; tokens?: ChatTokens }
    try {
      record = JSON.parse(line) as typeof record
    } catch {
      continue
    }
    if (record.type === 'gemini' && typeof record.id === 'string' && record.tokens !== undefined) responses.set(record.id, chatTokens(record.tokens))
  }
  return { file, requests: [...responses.values()], text }
}

/** Whether a file name is a Gemini chat record's (`session-<time>-<id>.jsonl`): the files the harness tails under `~/.gemini/tmp`. */
export function isChatName(name: string): boolean {
  return name.startsWith('session-') && name.endsWith('.jsonl')
}

/** The folder of a Gemini home (`~/.gemini`) the chat records are written under. */
export function chatsDir(geminiDir: string): string {
  return path.join(geminiDir, 'tmp')
}

/**
 * The chat record of `sessionId` among the tailed copies of a session's chat
 * records (`AppendOnlyTail`: what the CLI appended, never a file rewritten
 * since), or null.
 */
export function chatOf(copies: ReadonlyMap<string, string>, sessionId: string): GeminiChat | null {
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`
  for (const [file, text] of copies) {
    if (!path.basename(file).endsWith(suffix) || !text.slice(0, 500).includes(sessionId)) continue
    return parseChat(text, file)
  }
  return null
}
