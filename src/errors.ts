/**
 * The harness's error classes. Each carries a stable `code` so callers (the
 * case body, the CLI, tests) branch on the kind of failure, never on message
 * text, and each message says what to do about it.
 */

/**
 * Base class: every error task-outcome raises on purpose has a stable `code`
 * (`TASK_OUTCOME_…`). Catch it to tell the harness's own errors from bugs:
 * its message is written for the user (file, field, what to do), so the CLI
 * prints it as one line without a stack trace.
 */
export abstract class TaskOutcomeError extends Error {
  abstract readonly code: string
  override readonly name: string = this.constructor.name
}

/**
 * Why a run measured nothing (the reason kept in `harnessRetries`). A custom
 * agent throws `HarnessFailure` with one of these when its session is no
 * evidence; `auth`, `refused` and `setup` mistakes are not retried by default.
 */
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
  /** A task file or the workspace's template changed under the experiment, or the agent's own report was forged: it stops, nothing is recorded for the run. */
  | 'tampered'
  /** A CLI reported model usage its metering gateway never saw: its traffic went around the gateway, so its cost cannot be measured. */
  | 'unmetered'

/**
 * The run measured nothing: the agent or the harness broke, not the task.
 * Never recorded; retried (bounded, with backoff) when `retryable`.
 */
export class HarnessFailure extends TaskOutcomeError {
  readonly code = 'TASK_OUTCOME_HARNESS_FAILURE'
  readonly reason: HarnessFailureReason
  /** False when another attempt would fail the same way (e.g. no credentials). */
  readonly retryable: boolean
  /**
   * What the harness itself measured of the session before it failed (the
   * metering gateway's count of a `tampered` run), kept with the unrecorded
   * run so that nothing the harness measured is lost; undefined: nothing.
   */
  readonly measured: Readonly<Record<string, unknown>> | undefined

  constructor(reason: HarnessFailureReason, message: string, options: { retryable?: boolean; cause?: unknown; measured?: Readonly<Record<string, unknown>> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.reason = reason
    this.retryable = options.retryable ?? reason !== 'auth'
    this.measured = options.measured
  }
}

/**
 * The experiment, a task folder or the pre-registered spec is wrong, or changed
 * under recorded runs. Raised before any money is spent, or to stop a resume.
 * It is the user's to fix and its message says where and how, so, like
 * `DataError`, it carries no stack trace and no own fields for Vitest (which
 * prints a failed config or `configureVitest` as an inspected error) or the
 * CLI to print beside it.
 */
export class SpecError extends TaskOutcomeError {
  get code(): string {
    return 'TASK_OUTCOME_SPEC_ERROR'
  }

  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.stack = `${this.name}: ${message}`
  }
}

/**
 * Recorded data (`runs.jsonl`, a report) is malformed, incomplete or was
 * changed after it was recorded. Its message is the whole story (file, line,
 * what to do), so it carries no stack trace for Vitest or the CLI to print.
 */
export class DataError extends TaskOutcomeError {
  /** A getter, not an own field, so an inspected error prints as its one line. */
  get code(): string {
    return 'TASK_OUTCOME_DATA_ERROR'
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
  return problems.map((p) => `  ${p.file}${p.field === undefined ? '' : `: ${p.field}`}: ${p.message}`).join('\n')
}

/**
 * Several problems found at once (a task set, an experiment, a candidates
 * file): all are reported, not just the first. `problems` holds each one
 * (file, field, message) for callers that show them their own way.
 */
export class ProblemsError extends SpecError {
  override get code(): string {
    return 'TASK_OUTCOME_PROBLEMS'
  }

  readonly #problems: readonly Problem[]

  constructor(summary: string, problems: readonly Problem[]) {
    super(`${summary}\n${formatProblems(problems)}`)
    this.#problems = problems
  }

  /** Each problem (file, field, message), for callers that show them their own way. */
  get problems(): readonly Problem[] {
    return this.#problems
  }
}

/** A schema issue as zod reports it (structurally, so this leaf needs no zod import). */
export interface SchemaIssue {
  readonly code?: string
  readonly path: readonly PropertyKey[]
  readonly message: string
  /** The unknown keys of an `unrecognized_keys` issue. */
  readonly keys?: readonly string[]
}

/** One field a schema refused, and why. */
export interface FieldProblem {
  /** The dotted path below `at` (`arms.context.setup`, `agent.options.faults.0`), or `at` / `(root)` for the whole value. */
  readonly field: string
  readonly message: string
}

/**
 * The one way a schema's refusal is put into words: each issue names its
 * field as a dotted path (array indices as numbers), under `at` when the
 * value sits inside something larger (`agent.options`); an unknown key is a
 * problem of its own, named by its full path, saying what to do about it.
 */
export function schemaProblems(issues: readonly SchemaIssue[], at?: string): FieldProblem[] {
  const field = (path: readonly PropertyKey[]) => {
    const dotted = [...(at === undefined || at === '' ? [] : [at]), ...path.map(String)].join('.')
    return dotted === '' ? '(root)' : dotted
  }
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' && issue.keys !== undefined
      ? issue.keys.map((key) => ({ field: field([...issue.path, key]), message: 'unknown field: remove it or fix its spelling' }))
      : [{ field: field(issue.path), message: issue.message }],
  )
}

/** `schemaProblems` as one line: `field a.b: message; field c: message`. */
export function describeSchemaIssues(issues: readonly SchemaIssue[], at?: string): string {
  return schemaProblems(issues, at)
    .map((problem) => `field ${problem.field}: ${problem.message}`)
    .join('; ')
}
