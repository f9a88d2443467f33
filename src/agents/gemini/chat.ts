import type { Dirent } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
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

/** Finds and reads the chat record of `sessionId` under `geminiDir` (`~/.gemini`), or null. */
export async function readChat(geminiDir: string, sessionId: string): Promise<GeminiChat | null> {
  let entries: Dirent[]
  try {
    entries = await readdir(path.join(geminiDir, 'tmp'), { recursive: true, withFileTypes: true })
  } catch {
    return null
  }
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.startsWith('session-') || !entry.name.endsWith(suffix)) continue
    const file = path.join(entry.parentPath, entry.name)
    const text = await readFile(file, 'utf8')
    if (!text.slice(0, 500).includes(sessionId)) continue
    return parseChat(text, file)
  }
  return null
}
