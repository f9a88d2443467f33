/**
 * The harness's error classes. Each carries a stable `code` so callers (the
 * case body, the CLI, tests) branch on the kind of failure, never on message
 * text, and each message says what to do about it.
 */

/** Base class: every error task-outcome raises on purpose has a stable `code`. */
export abstract class TaskOutcomeError extends Error {
  abstract readonly code: string
  override readonly name: string = this.constructor.name
}

/** Why a run measured nothing (the reason kept in `harnessRetries`). */
export type HarnessFailureReason =
  /** The agent ended without a result event, or printed nothing parseable. */
  | 'no-result'
  /** The result event says `is_error: true` (whatever its `subtype`). */
  | 'agent-error'
  /** The API failed: `terminal_reason: "api_error"`, HTTP 4xx/5xx, unreachable. */
  | 'api-error'
  /** Not logged in, no key, or a rejected key: retrying cannot help. */
  | 'auth'
  /** A "successful" result that cost $0: the model was never called. */
  | 'zero-cost'
  /** The agent process crashed, or could not be started. */
  | 'crash'
  /** The agent CLI refused a flag or its configuration. */
  | 'refused'
  /** A treatment arm's hooks never fired: the run did not test the treatment. */
  | 'manipulation-check'
  /** The oracle produced no results (the test command crashed before reporting). */
  | 'oracle'
  /** Workspace or arm setup failed before the agent started. */
  | 'setup'
  /** The agent reported numbers no real run produces (a cost that is not finite, below a nano-dollar, far above the cap, or $0 at its budget cap). */
  | 'implausible-result'

/**
 * The run measured nothing: the agent or the harness broke, not the task.
 * Never recorded; retried (bounded, with backoff) when `retryable`.
 */
export class HarnessFailure extends TaskOutcomeError {
  readonly code = 'HARNESS_FAILURE'
  readonly reason: HarnessFailureReason
  /** False when another attempt would fail the same way (e.g. no credentials). */
  readonly retryable: boolean

  constructor(
    reason: HarnessFailureReason,
    message: string,
    options: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.reason = reason
    this.retryable = options.retryable ?? reason !== 'auth'
  }
}

/**
 * The experiment, a task folder or the pre-registered spec is wrong, or changed
 * under recorded runs. Raised before any money is spent, or to stop a resume.
 */
export class SpecError extends TaskOutcomeError {
  readonly code = 'SPEC_ERROR'
}

/**
 * Recorded data (`runs.jsonl`, a report) is malformed, incomplete or was
 * changed after it was recorded. Its message is the whole story (file, line,
 * what to do), so it carries no stack trace for Vitest or the CLI to print.
 */
export class DataError extends TaskOutcomeError {
  /** A getter, not an own field, so an inspected error prints as its one line. */
  get code(): string {
    return 'DATA_ERROR'
  }

  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.stack = `${this.name}: ${message}`
  }
}

/** One problem found while validating a file: where, which field, what to do. */
export interface Problem {
  /** The file, relative to the project root where possible. */
  readonly file: string
  /** The field or line inside the file, when there is one (`arms.context.setup`, `line 12`). */
  readonly field?: string
  readonly message: string
}

/** Formats problems one per line as `file: field: message`. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems
    .map((p) => `  ${p.file}${p.field === undefined ? '' : `: ${p.field}`}: ${p.message}`)
    .join('\n')
}

/** Several problems found at once (a task set, an experiment): all are reported, not just the first. */
export class ProblemsError extends SpecError {
  readonly problems: readonly Problem[]

  constructor(summary: string, problems: readonly Problem[]) {
    super(`${summary}\n${formatProblems(problems)}`)
    this.problems = problems
  }
}
