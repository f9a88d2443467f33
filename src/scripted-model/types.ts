/**
 * The scripted model's vocabulary, shared by the policy and every protocol
 * handler. A handler turns its wire format into a `Conversation`, asks the
 * policy for a `ModelTurn`, and turns the turn's abstract `Action` into a
 * tool call its CLI understands (Claude Code's `Read`, Codex's `shell`, …).
 */

/** One piece of a message, whatever the protocol. */
export type ConversationPart =
  /** Text the model is shown (prompt, CLAUDE.md, hook context) or wrote. */
  | { readonly type: 'text'; readonly text: string }
  /** A tool call the model made earlier in the conversation. */
  | { readonly type: 'tool-call'; readonly id: string; readonly name: string; readonly input: unknown }
  /** What a tool returned. */
  | { readonly type: 'tool-result'; readonly callId: string; readonly text: string; readonly isError: boolean }

/** A message of the conversation so far. Mid-conversation system messages count as `user` context. */
export interface ConversationMessage {
  readonly role: 'user' | 'assistant'
  readonly parts: readonly ConversationPart[]
}

/** Everything the model has been shown in one request, in protocol-neutral form. */
export interface Conversation {
  /** The system prompt, all blocks joined. */
  readonly system: string
  readonly messages: readonly ConversationMessage[]
  /** Names of the tools the request offers. */
  readonly tools: readonly string[]
  /**
   * `agent`: the session's main loop (it offers tools to act with).
   * `auxiliary`: a side request of the CLI (a session title, a summary): answered with text.
   */
  readonly kind: 'agent' | 'auxiliary'
  /** For auxiliary requests that ask for JSON: the JSON schema of the answer. */
  readonly responseSchema?: unknown
}

/** One file the reference fix changes: its content before and after (null: absent). */
export interface GoldEdit {
  /** Workspace-relative, POSIX separators. */
  readonly path: string
  readonly before: string | null
  readonly after: string | null
}

/** What the scripted model "knows" about the task: the repository's files and the fix. */
export interface ScriptedTask {
  readonly id: string
  /** The task's prompt (keywords for searches come from it). */
  readonly prompt: string
  /** Workspace files (relative, POSIX), the candidates for exploration. */
  readonly files: readonly string[]
  /** The reference fix, file by file. Empty: the model explores and finishes without editing. */
  readonly edits: readonly GoldEdit[]
}

/**
 * The model's next move, independent of any CLI's tool names. Paths are
 * workspace-relative; handlers make them absolute where their CLI needs it.
 */
export type Action =
  /** List the workspace's files. */
  | { readonly kind: 'list'; readonly dir: string }
  /** Search file contents for a word. */
  | { readonly kind: 'search'; readonly pattern: string }
  /** Read one file. */
  | { readonly kind: 'read'; readonly path: string }
  /**
   * Change one file: replace `oldString` (unique in the file) with `newString`.
   * `before`/`after` are the whole file, for CLIs that write or patch whole files.
   * `wrong` marks a deliberate wrong edit (the file changes, the bug stays).
   */
  | {
      readonly kind: 'edit'
      readonly path: string
      readonly oldString: string
      readonly newString: string
      readonly before: string
      readonly after: string
      readonly wrong: boolean
    }
  /** Create (or overwrite) a file with `content`. */
  | { readonly kind: 'write'; readonly path: string; readonly content: string; readonly wrong: boolean }
  /** Delete a file. */
  | { readonly kind: 'delete'; readonly path: string }
  /** Stop: the turn's text is the final answer. */
  | { readonly kind: 'finish' }

/** The model's answer to one request: some text, then one action (a tool call, or finishing). */
export interface ModelTurn {
  /** Text written before the action (or the final answer when finishing). */
  readonly text: string
  readonly action: Action
}

/** Token usage of one response, in the four kinds every price table knows. */
export interface Usage {
  /** Input tokens neither read from nor written to the cache. */
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens: number
  readonly cacheWriteTokens: number
}
