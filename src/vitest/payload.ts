import type { PlannedRun } from '../runs/plan.ts'
import type { Outcome, Versions } from '../runs/record.ts'

/** What the plugin hands a task's test module, computed once in Vitest's main process. */
export interface TaskModulePayload {
  readonly experiment: { readonly file: string; readonly exportName: string; readonly root: string }
  readonly taskDir: string
  /** The task folder's files as the spec manifest locked them: checked before every run and every oracle. */
  readonly taskFiles: Readonly<Record<string, string>>
  readonly specSha256: string
  /** The task's runs in their seeded order; `recorded` is set for runs already in runs.jsonl. */
  readonly runs: ReadonlyArray<PlannedRun & { readonly recorded: { readonly outcome: Outcome; readonly costUsd: number } | null }>
  /** The versions already recorded for each arm (a resume refuses to mix them). */
  readonly recordedVersions: Readonly<Record<string, Versions>>
  /** The test runner this task's recorded runs were judged with (absent: none recorded); a run with another stops. */
  readonly recordedTestRunner?: string | null
  /** A sequential design: this task's block (1-based; its cases wait for the look before it), else null. */
  readonly block: number | null
  /** Per-case timeout in ms: every attempt's agent and oracle timeouts plus the backoffs. */
  readonly caseTimeoutMs: number
  /** The experiment's whole budget (`maxBudgetUsd`) as the workers apply it, or null without one. */
  readonly budget: {
    readonly maxUsd: number
    /** What the runs already recorded cost (this shard's, for a shard). */
    readonly spentBeforeUsd: number
    /** A run's cap (`budgetUsd`): what a run under way may still cost. */
    readonly runCapUsd: number
    /** `i/n` for a shard (its share of the limit), else null. */
    readonly shard: string | null
  } | null
}
