import { z } from 'zod'

/** The `command` agent's `options` (an experiment's `agent.options`). */
export const CommandOptionsSchema = z.strictObject({
  /** A result of `completed` at $0 is accepted (a command that calls no paid model); by default it is a harness failure. */
  allowZeroCost: z.boolean().default(false),
  /** The version recorded for the command; default: its executable's name and SHA-256, so any change to it shows. */
  version: z.string().min(1).optional(),
  /** The price table's provider when the result is priced from its tokens (default: matched from the model id). */
  priceProvider: z.string().min(1).optional(),
  /**
   * The model API the command calls (`https://api.anthropic.com`, a model
   * server on 127.0.0.1): the run's metering gateway forwards to it, and the
   * command gets the gateway's base URL in `TASK_OUTCOME_MODEL_URL`. Its
   * requests are then metered (`metered` in the record, the cost endpoint);
   * without it the command's own report is the only cost (`metered: null`).
   */
  modelApi: z.url({ protocol: /^https?$/ }).optional(),
  /** Harness loopback ports the sandboxed command reaches at the same 127.0.0.1 port (a model server of its own). */
  loopbackPorts: z.array(z.number().int().min(1).max(65535)).default([]),
  /** Seconds between SIGTERM and SIGKILL when the run's process group is killed (default 2). */
  killGraceSeconds: z.number().nonnegative().default(2),
})
export type CommandOptions = z.infer<typeof CommandOptionsSchema>
