import { z } from 'zod'
import { ScriptedModelOptionSchema } from '../scripted-run.ts'

/**
 * The `codex` agent's `options` (an experiment's `agent.options`). Unknown
 * keys are errors, like everywhere in an experiment spec.
 */
export const CodexOptionsSchema = z.strictObject({
  /**
   * An OpenAI Responses API base URL (e.g. `http://127.0.0.1:8080/v1`): the
   * session runs against a `wire_api = "responses"` provider there instead of
   * OpenAI (the scripted model server, a proxy, a local gateway).
   */
  baseUrl: z.url().optional(),
  /** The environment variable holding that provider's API key (default `OPENAI_API_KEY`). */
  envKey: z.string().min(1).default('OPENAI_API_KEY'),
  /** That provider's `request_max_retries` (Codex's default when absent). */
  requestMaxRetries: z.number().int().nonnegative().optional(),
  /** That provider's `stream_max_retries`. */
  streamMaxRetries: z.number().int().nonnegative().optional(),
  /** That provider's `stream_idle_timeout_ms`: a stalled stream fails after this long. */
  streamIdleTimeoutMs: z.number().int().positive().optional(),
  /**
   * `--sandbox` for the commands Codex runs. Default: `danger-full-access` when the run is inside the harness's own
   * sandbox (that bubblewrap is the wall; Codex's nested one depends on where its package and home lie and on the
   * host's bwrap, and fails with `execvp codex-linux-sandbox` when it cannot start), `workspace-write` outside it.
   */
  sandbox: z.enum(['read-only', 'workspace-write', 'danger-full-access']).optional(),
  /** More `-c key=value` overrides; values are TOML (`'"o3"'`, `'true'`, `'["a"]'`). */
  config: z.record(z.string().min(1), z.string()).default({}),
  /** The price table's name for the model, when it differs from `agent.model`. */
  priceModel: z.string().min(1).optional(),
  /** The price table's provider (default `openai`). */
  priceProvider: z.string().min(1).default('openai'),
  /**
   * Run against the project's scripted model server instead of a real model
   * (no account, no network): `true`, or its options (`wrongEditRate`,
   * `faults`, `latencyMs`, …). It replaces `baseUrl` and `envKey`, and sets
   * no retries unless `requestMaxRetries`/`streamMaxRetries` say otherwise.
   */
  scriptedModel: ScriptedModelOptionSchema,
})
export type CodexOptions = z.infer<typeof CodexOptionsSchema>
