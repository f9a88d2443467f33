import type { Usage } from './types.ts'

/**
 * Usage accounting: the scripted model reports tokens in proportion to what
 * it is sent and what it writes, so the CLI's own price table turns a longer
 * session into a higher cost, exactly as with a real model.
 */

/** Roughly four characters per token, as for English text and code. */
export const CHARS_PER_TOKEN = 4

/** How many characters a text counts for: its length, or as `runPathCharacters` counts them. */
export type CharacterCount = (text: string) => number

/** What the paths the harness chose for a run count as, wherever it made them. */
export const RUN_PATH_STAND_INS = { workspace: '/workspace', home: '/home/agent' } as const

/** The folders of one run the harness named (absolute paths, as the agent sees them). */
export interface RunPaths {
  readonly workspace?: string | undefined
  readonly home?: string | undefined
}

/** A path as Claude Code names a project folder after it (`/a/b.c` → `-a-b-c`, in `~/.claude/projects/`). */
const dashed = (folder: string) => folder.replace(/[^A-Za-z0-9]/g, '-')

/**
 * Counts characters as the meter bills them: the run's workspace and HOME
 * (in the CLI's system prompt, in the tool calls the model writes, in tool
 * results, in a memory folder named after the workspace) count as the
 * fixed stand-ins of `RUN_PATH_STAND_INS`. The harness makes these folders
 * under roots of any name and length (a shard's machine, a
 * `TASK_OUTCOME_WORKDIR`, a random suffix), and a run's tokens, so the cost
 * the CLI derives from them, must not depend on where it ran: the same
 * (task, arm, seed) bills the same in a sharded and an unsharded run.
 */
export function runPathCharacters(paths: RunPaths): CharacterCount {
  const replacements: Array<readonly [string, string]> = []
  for (const [name, stand] of Object.entries(RUN_PATH_STAND_INS) as Array<[keyof RunPaths, string]>) {
    const folder = paths[name]?.replace(/\/+$/, '')
    if (folder === undefined || folder === '') continue
    replacements.push([folder, stand], [dashed(folder), dashed(stand)])
  }
  // Longest first, so a folder inside another is replaced before its parent.
  replacements.sort((a, b) => b[0].length - a[0].length)
  if (replacements.length === 0) return (text) => text.length
  return (text) => replacements.reduce((counted, [folder, stand]) => counted.replaceAll(folder, stand), text).length
}

/** Tokens of a text (at least 1 for non-empty text), its characters counted by `count`. */
export function estimateTokens(text: string, count: CharacterCount = (plain) => plain.length): number {
  const characters = count(text)
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(characters / CHARS_PER_TOKEN))
}

/** What a protocol handler measured about one request's prompt. */
export interface PromptSize {
  /** Identifies the conversation whose prefix may be cached (system prompt and tools, say). */
  readonly cacheKey: string
  /** Tokens of the prompt up to the last point the request marks as cacheable (0: no caching). */
  readonly cacheableTokens: number
  /** Tokens after that point: always billed as plain input. */
  readonly uncachedTokens: number
}

/**
 * Prompt caching as the APIs bill it: per conversation, the part of the
 * cacheable prefix seen in an earlier request is a cache read, the rest of it
 * a cache write; what follows the last cache mark is plain input. One meter
 * lives as long as its server (one run).
 */
export class UsageMeter {
  readonly #cached = new Map<string, number>()
  readonly #zero: boolean
  #total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }

  /** `zero`: report no tokens at all (a test of the "$0 success" failure). */
  constructor(options: { readonly zero?: boolean } = {}) {
    this.#zero = options.zero ?? false
  }

  /** The usage of one response, given its prompt and the tokens written. */
  measure(prompt: PromptSize, outputTokens: number): Usage {
    if (this.#zero) return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
    const seen = this.#cached.get(prompt.cacheKey) ?? 0
    const cacheReadTokens = Math.min(seen, prompt.cacheableTokens)
    const cacheWriteTokens = prompt.cacheableTokens - cacheReadTokens
    if (prompt.cacheableTokens > seen) this.#cached.set(prompt.cacheKey, prompt.cacheableTokens)
    const usage: Usage = { inputTokens: prompt.uncachedTokens, outputTokens, cacheReadTokens, cacheWriteTokens }
    this.#total = {
      inputTokens: this.#total.inputTokens + usage.inputTokens,
      outputTokens: this.#total.outputTokens + usage.outputTokens,
      cacheReadTokens: this.#total.cacheReadTokens + usage.cacheReadTokens,
      cacheWriteTokens: this.#total.cacheWriteTokens + usage.cacheWriteTokens,
    }
    return usage
  }

  /** Everything billed so far, for tests that check the CLI's own totals against it. */
  get total(): Usage {
    return this.#total
  }
}
