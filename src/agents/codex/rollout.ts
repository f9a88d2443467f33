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

/** Whether a file name is a Codex rollout's (`rollout-<time>-<thread id>.jsonl`): the files the harness tails under `$CODEX_HOME/sessions`. */
export function isRolloutName(name: string): boolean {
  return name.startsWith('rollout-') && name.endsWith('.jsonl')
}

/** The rollouts folder of a Codex home: where the harness tails the session's rollout while it runs. */
export function rolloutsDir(codexHome: string): string {
  return path.join(codexHome, 'sessions')
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

/**
 * The rollout of `threadId` among the tailed copies of a session's rollouts
 * (`AppendOnlyTail`: what Codex appended, never a file rewritten since), or
 * null when Codex kept none.
 */
export function rolloutOf(copies: ReadonlyMap<string, string>, threadId: string): CodexRollout | null {
  for (const [file, text] of copies) if (path.basename(file).endsWith(`${threadId}.jsonl`)) return parseRollout(text, file)
  return null
}
