import { z } from 'zod'
import { SpecError } from '../../errors.ts'
import { FaultRuleSchema } from '../scripted-model/faults.ts'

/**
 * `agent.options` of a `claude-code` agent. Strict: a misspelt option is an
 * error, not a silent default.
 */

const range = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).refine(([min, max]) => min <= max, 'write [min, max] with min ≤ max')

/** Runs the session against the project's scripted model server instead of a real model. */
export const ScriptedModelOptionsSchema = z.strictObject({
  /** Chance of a wrong edit (the file changes, the bug stays). Default 0.15. */
  wrongEditRate: z.number().min(0).max(1).optional(),
  /** Content searches when the file to change is not known: [min, max]. Default [1, 2]. */
  searches: range.optional(),
  /** Other files read when the file to change is not known: [min, max]. Default [1, 3]. */
  decoyReads: range.optional(),
  /** Chance that a session told where to look still reads one other file. Default 0.25. */
  hintedDecoyRate: z.number().min(0).max(1).optional(),
  /** Failures to inject into model calls (401, 529, drop, stall, …), for tests. */
  faults: z.array(FaultRuleSchema).default([]),
  /** Delay before each model answer, in ms (default 0). */
  latencyMs: z.number().int().nonnegative().default(0),
  /** Report zero tokens, so the CLI's cost is $0 (the "$0 success" failure), for tests. */
  zeroUsage: z.boolean().default(false),
})
export type ScriptedModelOptions = z.infer<typeof ScriptedModelOptionsSchema>

export const ClaudeCodeOptionsSchema = z.strictObject({
  /**
   * `--permission-mode`. The default, `bypassPermissions`, lets the agent edit
   * without asking (as root the adapter sets `IS_SANDBOX=1`, which the CLI
   * requires). `default` denies edits in `-p` mode.
   */
  permissionMode: z.enum(['bypassPermissions', 'acceptEdits', 'default', 'plan', 'dontAsk']).default('bypassPermissions'),
  /** `--setting-sources` (e.g. `user`: ignore the workspace's `.claude/settings.json`). Default: the CLI's (all). */
  settingSources: z.string().min(1).optional(),
  /** A settings file passed with `--settings` (relative to the experiment file's folder). */
  settings: z.string().min(1).optional(),
  /** Seconds between SIGTERM and SIGKILL when the run's process group is killed. Default 5. */
  killGraceSeconds: z.number().nonnegative().default(5),
  /** Drive the real CLI with the scripted model server on 127.0.0.1 (no account, no network). `true`: the defaults. */
  scriptedModel: z.preprocess((value) => (value === true ? {} : value), ScriptedModelOptionsSchema).optional(),
})
export type ClaudeCodeOptions = z.infer<typeof ClaudeCodeOptionsSchema>
export type ClaudeCodeOptionsInput = z.input<typeof ClaudeCodeOptionsSchema>

/** Parses `agent.options`, naming the field at fault. */
export function parseClaudeCodeOptions(options: unknown): ClaudeCodeOptions {
  const parsed = ClaudeCodeOptionsSchema.safeParse(options ?? {})
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => `agent.options${issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')}: ${issue.message}`)
  throw new SpecError(`claude-code: invalid options:\n  ${problems.join('\n  ')}`)
}
