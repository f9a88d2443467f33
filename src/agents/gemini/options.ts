import { z } from 'zod'
import { ScriptedModelOptionSchema } from '../scripted-run.ts'

/**
 * The `gemini` agent's `options` (an experiment's `agent.options`). Unknown
 * keys are errors, like everywhere in an experiment spec.
 */
export const GeminiOptionsSchema = z.strictObject({
  /**
   * A Gemini API base URL (`GOOGLE_GEMINI_BASE_URL`), e.g. the scripted model
   * server's. The adapter then selects API-key auth in the run's settings:
   * with a base URL alone the CLI picks a "gateway" auth that `-p` refuses.
   */
  baseUrl: z.url().optional(),
  /** `security.auth.selectedType` (default: the CLI's choice from the environment, or `gemini-api-key` with `baseUrl`). */
  authType: z.enum(['gemini-api-key', 'vertex-ai', 'oauth-personal', 'compute-default-credentials']).optional(),
  /** `general.maxAttempts`: API attempts per request (the CLI retries with backoff; default its own, 10). */
  maxAttempts: z.number().int().positive().optional(),
  /** `--approval-mode`: `yolo` (default) lets every tool run; `auto_edit` approves edits only. */
  approvalMode: z.enum(['yolo', 'auto_edit']).default('yolo'),
  /** More settings, deep-merged into the run's `~/.gemini/settings.json`. */
  settings: z.record(z.string(), z.unknown()).default({}),
  /** The price table's name for the model, when it differs from `agent.model`. */
  priceModel: z.string().min(1).optional(),
  /** The price table's provider (default `google`). */
  priceProvider: z.string().min(1).default('google'),
  /**
   * Run against the project's scripted model server instead of a real model
   * (no account, no network): `true`, or its options (`wrongEditRate`,
   * `faults`, `latencyMs`, …). It replaces `baseUrl` and the key, and makes
   * one API attempt per request unless `maxAttempts` says otherwise.
   */
  scriptedModel: ScriptedModelOptionSchema,
})
export type GeminiOptions = z.infer<typeof GeminiOptionsSchema>
