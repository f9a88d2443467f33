import { z } from 'zod'
import { schemaProblems, SpecError } from '../../errors.ts'
import { ScriptedModelOptionsSchema } from '../../scripted-model/options.ts'

/**
 * `agent.options` of a `claude-code` agent. Strict: a misspelt option is an
 * error, not a silent default.
 */

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
  const problems = schemaProblems(parsed.error.issues, 'agent.options').map((problem) => `${problem.field}: ${problem.message}`)
  throw new SpecError(`claude-code: invalid options:\n  ${problems.join('\n  ')}`)
}
