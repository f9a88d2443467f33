import type { CostSource, Metered, Tokens } from './usage.ts'
import type { RunSandbox } from '../sandbox/index.ts'
import type { Task } from '../tasks/task.ts'

/**
 * The contract every agent adapter implements, from the built-in `gold` and
 * `noop` to the real CLIs. An adapter runs one session and reads what the
 * agent printed; it never decides whether the task was solved (the oracle
 * does) and never records anything (the reporter does).
 */

/** Where an adapter resolves relative paths (`agent.bin`, a settings file). */
export interface AgentContext {
  /** The experiment file's folder. */
  readonly experimentDir: string
  /** The project root. */
  readonly root: string
}

/** Everything an adapter gets for one run. */
export interface AgentRunRequest {
  readonly task: Task
  /** The run's fresh workspace: the agent's working directory, as the agent sees it. */
  readonly workspace: string
  /** The same workspace as the harness reaches it (an overlay's merged tree through its holder); default `workspace`. */
  readonly workspaceOnHost?: string
  /** The run's sandbox: every process the adapter starts goes through it (undefined: UNSANDBOXED). */
  readonly sandbox?: RunSandbox
  /** The exact prompt (the task's `task.md`). */
  readonly prompt: string
  /**
   * The agent process's whole environment: an allowlist already built by the
   * harness (PATH cleaned of the tool under test, HOME of its own, the arm's
   * variables). Adapters add their own variables to it, never `process.env`.
   */
  readonly env: Readonly<Record<string, string>>
  /** The per-run budget cap in USD (`--max-budget-usd` where the agent has it). */
  readonly budgetUsd: number
  /** The harness's wall-clock timeout; past it the whole process group is killed. */
  readonly timeoutMs: number
  /** Where the raw transcript goes (the folder exists). */
  readonly transcriptPath: string
  /**
   * The agent's setting sources, when the arm fixes them (skill experiments:
   * `[]` loads no project settings or skills, `['project']` loads the
   * workspace's). Undefined: the agent's default.
   */
  readonly settingSources?: readonly string[]
  /** Hook events the arm's tool installs (manipulation check); empty when the arm has none. */
  readonly expectedHooks: readonly string[]
  readonly arm: string
  readonly seed: number
  /** Aborts the run (the process group is killed). */
  readonly signal?: AbortSignal
}

/**
 * How the agent's session ended, when it measured something (a session that
 * measured nothing throws `HarnessFailure` instead). Every stop is judged by
 * the oracle; `timeout` is recorded at the arm's budget cap.
 */
export type AgentStop =
  /** The agent finished on its own. */
  | 'completed'
  /** The agent's own turn limit stopped it; the oracle still judges what it left. */
  | 'max-turns'
  /** The agent's own budget cap stopped it; the oracle still judges what it left. */
  | 'max-budget'
  /** The harness's timeout killed it: recorded as `timeout`, at the budget cap. */
  | 'timeout'

/** What an adapter read from one session. Failures are thrown as `HarnessFailure` instead. */
export interface AgentRunResult {
  readonly stop: AgentStop
  /** Cost in USD; on a timeout the adapter's best knowledge (the runner charges the budget cap). */
  readonly costUsd: number
  readonly costSource: CostSource
  readonly tokens: Tokens | null
  readonly turns: number | null
  readonly toolCalls: number | null
  /** `tool_use` blocks before the first Edit / Write / MultiEdit / NotebookEdit (or the agent's equivalent). */
  readonly toolCallsBeforeFirstEdit: number | null
  readonly wallMs: number
  /** The model the agent reported using. */
  readonly model: string | null
  /** SHA-256 of the transcript written to `transcriptPath`, or null when the agent kept none. */
  readonly transcriptSha256: string | null
  /** How many times each hook event fired in the session, or null when the agent cannot tell. */
  readonly hooksFired: Readonly<Record<string, number>> | null
  /** What the harness's metering gateway counted (null or absent: the agent's traffic was not metered). */
  readonly metered?: Metered | null
  /**
   * The harness's own count of hook starts (`HookChannel`): starts by event of every wrapped hook command, and the
   * lines on its channel that were no start of a wrapped hook; null or absent when the harness wrapped none.
   */
  readonly hookStarts?: HookStartCount | null
}

/** The harness's count of hook starts in one session. */
export interface HookStartCount {
  /** Starts by hook event, every wrapped event present (0: none of its commands started). */
  readonly byEvent: Readonly<Record<string, number>>
  /** Lines written to the channel that were not the start of a wrapped hook (something else wrote them). */
  readonly foreign: readonly string[]
}

/** One agent, configured for an experiment's arm. */
export interface Agent {
  /** The adapter's kind (`claude-code`, `gold`, …). */
  readonly kind: string
  /**
   * The agent's version as recorded in `versions.agent`, probed before any run
   * so a resume can refuse to mix versions before money is spent.
   */
  version(env: Readonly<Record<string, string>>): Promise<string>
  /** Runs one session. Throws `HarnessFailure` when the run measured nothing. */
  run(request: AgentRunRequest): Promise<AgentRunResult>
}
