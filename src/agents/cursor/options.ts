import { z } from 'zod'
import { ScriptedModelOptionSchema } from '../scripted-run.ts'

/** The `cursor` agent's `options` (an experiment's `agent.options`). */
export const CursorOptionsSchema = z.strictObject({
  /** The environment variable holding the Cursor API key (default `CURSOR_API_KEY`); a run without it fails fast as `auth`. */
  apiKeyEnv: z.string().min(1).default('CURSOR_API_KEY'),
  /** The Cursor backend (`CURSOR_BACKEND_URL`; default the SDK's, `https://api2.cursor.sh`). */
  backendUrl: z.url().optional(),
  /** `local.settingSources`: which Cursor settings (rules, hooks) the agent loads. Default: the workspace's and the run HOME's. */
  settingSources: z.array(z.enum(['project', 'user', 'team', 'mdm', 'plugins', 'all'])).default(['project', 'user']),
  /** The Node executable that runs the SDK (default: the harness's own). @cursor/sdk 1.0.31 needs Node >= 22.23 (its native binding crashes on 22.13.0). */
  node: z.string().min(1).optional(),
  /** The price table's name for the model, when it differs from `agent.model` (Cursor's ids rarely match it). */
  priceModel: z.string().min(1).optional(),
  /** The price table's provider (default: matched from the model id). */
  priceProvider: z.string().min(1).optional(),
  /** Seconds between SIGTERM and SIGKILL when the run's process group is killed (default 2). */
  killGraceSeconds: z.number().nonnegative().default(2),
  /**
   * Run against the project's scripted model server instead of Cursor's
   * backend (`true` or its options, see `src/scripted-model/README.md`): the
   * server speaks Cursor's agent backend, the SDK's tools are real, no key is
   * needed. The server lists `gpt-5`, `claude-sonnet-4-5` and `composer-1`
   * (the SDK refuses a model its backend does not list).
   */
  scriptedModel: ScriptedModelOptionSchema,
})
export type CursorOptions = z.infer<typeof CursorOptionsSchema>
