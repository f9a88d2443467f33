import { z } from 'zod'
import { describeSchemaIssues, HarnessFailure, type HarnessFailureReason } from '../../errors.ts'
import { TokensSchema } from '../usage.ts'

/**
 * The JSON result a `command` agent prints: the last non-empty line of its
 * stdout must be one JSON object of this shape (earlier lines are its own
 * log, kept in the transcript).
 *
 * ```json
 * {"status":"completed","costUsd":0.0123,"tokens":{"input":1200,"output":340,"cacheRead":5000,"cacheWrite":0},
 *  "model":"gpt-5","turns":6,"toolCalls":5,"toolCallsBeforeFirstEdit":3,"hooksFired":{"PostToolUse":2}}
 * ```
 *
 * - `status` (required): `completed` (it finished), `max-turns` / `max-budget` (its own limit stopped it;
 *   the oracle still judges what it left), or `error` (the run measured nothing: give `error`).
 * - `costUsd`: what the session cost, in USD. Without it, `tokens` and `model` are required and the
 *   cost is priced with `@pydantic/genai-prices`. A `completed` run at $0 is a harness failure
 *   (the model was never called) unless the agent's option `allowZeroCost` is true.
 * - `tokens`: `input` (excluding cache reads and writes), `output` (reasoning included), `cacheRead`,
 *   `cacheWrite`; all non-negative integers.
 * - `model`, `turns`, `toolCalls`, `toolCallsBeforeFirstEdit`, `hooksFired` (hook event → times fired):
 *   optional, `null` or absent when unknown.
 * - `error` (with `status: "error"`): `{"reason": "auth" | "api-error" | "agent-error", "message": "…"}`;
 *   `auth` is not retried.
 */
export const CommandResultSchema = z
  .strictObject({
    status: z.enum(['completed', 'max-turns', 'max-budget', 'error']),
    costUsd: z.number().nonnegative().optional(),
    tokens: TokensSchema.nullable().optional(),
    model: z.string().min(1).nullable().optional(),
    turns: z.number().int().nonnegative().nullable().optional(),
    toolCalls: z.number().int().nonnegative().nullable().optional(),
    toolCallsBeforeFirstEdit: z.number().int().nonnegative().nullable().optional(),
    hooksFired: z.record(z.string(), z.number().int().nonnegative()).nullable().optional(),
    error: z.strictObject({ reason: z.enum(['auth', 'api-error', 'agent-error']), message: z.string() }).optional(),
  })
  .superRefine((result, ctx) => {
    if (result.status === 'error' && result.error === undefined) {
      ctx.addIssue({ code: 'custom', path: ['error'], message: 'required when status is "error": {"reason": "auth" | "api-error" | "agent-error", "message": "…"}' })
    }
    if (result.status !== 'error' && result.costUsd === undefined && (result.tokens == null || result.model == null)) {
      ctx.addIssue({ code: 'custom', path: ['costUsd'], message: 'required, unless both "tokens" and "model" are given to price the session with' })
    }
  })
export type CommandResult = z.infer<typeof CommandResultSchema>

/**
 * Reads the result from a command's stdout. Throws a non-retryable
 * `HarnessFailure('no-result')` naming the field at fault: a command that
 * prints a malformed result will print it again.
 */
export function parseCommandResult(stdout: string, command: string): CommandResult {
  const line = stdout
    .split('\n')
    .map((text) => text.trim())
    .filter((text) => text !== '')
    .at(-1)
  if (line === undefined)
    throw new HarnessFailure('no-result', `${command} printed nothing: its last stdout line must be its JSON result (see CommandResultSchema)`, { retryable: false })
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    throw new HarnessFailure('no-result', `${command}: the last stdout line is not JSON (${(error as Error).message}): ${line.slice(0, 200)}`, { retryable: false })
  }
  const parsed = CommandResultSchema.safeParse(value)
  if (!parsed.success) {
    throw new HarnessFailure('no-result', `${command} printed a malformed result: ${describeSchemaIssues(parsed.error.issues)}`, { retryable: false })
  }
  return parsed.data
}

/** The harness failure a result with `status: "error"` stands for. */
export function commandFailure(result: CommandResult, command: string): HarnessFailure {
  const reason: HarnessFailureReason = result.error?.reason ?? 'agent-error'
  return new HarnessFailure(reason, `${command} reported an error (${reason}): ${result.error?.message ?? ''}`)
}
