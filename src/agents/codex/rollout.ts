import type { Dirent } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Tokens } from '../usage.ts'
import { codexTokens, type CodexUsage } from './stream.ts'

/**
 * Codex's own record of a session: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl`.
 * The JSON stream gives only the turn's total usage; the rollout has one
 * `token_usage_record` per model response, which gives the number of model
 * calls (turns) and each call's usage (long-context prices apply per call).
 * It is Codex's internal format, so everything read from it is optional.
 */

/** What the rollout adds to the stream. */
export interface CodexRollout {
  /** The rollout file. */
  readonly file: string
  /** Usage of each model response, in order. */
  readonly requests: readonly Tokens[]
  /** The model the session ran (`turn_context.model`). */
  readonly model: string | null
  /** The rollout's raw text (saved beside the transcript). */
  readonly text: string
}

/** Finds the rollout of `threadId` under `codexHome`, or null. */
export async function findRollout(codexHome: string, threadId: string): Promise<string | null> {
  const sessions = path.join(codexHome, 'sessions')
  let entries: Dirent[]
  try {
    entries = await readdir(sessions, { recursive: true, withFileTypes: true })
  } catch {
    return null
  }
  const match = entries.find((entry) => entry.isFile() && entry.name.startsWith('rollout-') && entry.name.endsWith(`${threadId}.jsonl`))
  return match === undefined ? null : path.join(match.parentPath, match.name)
}

/** Parses a rollout's text. Lines that are not the records we read are skipped. */
export function parseRollout(text: string, file: string): CodexRollout {
  const requests: Tokens[] = []
  let model: string | null = null
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    let record: { type?: string; payload?: { usage?: CodexUsage; model?: string } }
    try {
      record = JSON.parse(line) as typeof record
    } catch {
      continue
    }
    if (record.type === 'token_usage_record' && record.payload?.usage !== undefined) requests.push(codexTokens(record.payload.usage))
    if (record.type === 'turn_context' && typeof record.payload?.model === 'string') model = record.payload.model
  }
  return { file, requests, model, text }
}

/** Reads the rollout of `threadId`, or null when Codex kept none there. */
export async function readRollout(codexHome: string, threadId: string): Promise<CodexRollout | null> {
  const file = await findRollout(codexHome, threadId)
  if (file === null) return null
  return parseRollout(await readFile(file, 'utf8'), file)
}
