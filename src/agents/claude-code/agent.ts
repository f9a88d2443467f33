import path from 'node:path'
import { HarnessFailure } from '../../errors.ts'
import type { AgentSpec } from '../../experiment/schema.ts'
import { CliAgent, HELD_KEY_PLACEHOLDER, type CliLaunch, type CliSession, type HeldKey } from '../cli-agent.ts'
import { resolveAgentPackage } from '../packages.ts'
import { loopbackPorts, SCRIPTED_MODEL_KEY } from '../scripted-run.ts'
import type { AgentRunRequest, AgentRunResult } from '../types.ts'
import { classifyClaudeRun } from './classify.ts'
import { wrapClaudeHooks, type WrappedHooks } from './hook-wrapping.ts'
import { parseClaudeCodeOptions, type ClaudeCodeOptions } from './options.ts'
import { parseClaudeStream } from './stream.ts'

/**
 * `claude-code`: the Claude Code CLI in print mode (`claude -p`), its
 * stream-json read line by line, in a process group of its own. With
 * `options.scriptedModel` each run gets its own scripted model server on
 * 127.0.0.1, so the real CLI runs whole sessions with no account and no network.
 */

/** Where the adapter resolves relative paths. */
export interface ClaudeCodeContext {
  /** The experiment file's folder (`bin` and `options.settings` are relative to it). */
  readonly experimentDir: string
}

/** The pinned CLI from the `@anthropic-ai/claude-code` npm dependency. */
export function pinnedClaudeBin(): string {
  const packageJson = resolveAgentPackage('claude-code')
  return path.join(path.dirname(packageJson), 'bin', 'claude.exe')
}

/** The API key the CLI is given for the scripted model server (any value passes; the server checks none). */
export { SCRIPTED_MODEL_KEY as SCRIPTED_API_KEY } from '../scripted-run.ts'

const isRoot = () => process.getuid?.() === 0

/**
 * The CLI's arguments for one run (the prompt goes to stdin). `settingSources`
 * from the run (a skills condition fixes them) wins over the agent's option;
 * `[]` loads no settings at all.
 */
export function claudeArgs(
  spec: AgentSpec,
  options: ClaudeCodeOptions,
  run: { readonly budgetUsd: number; readonly settingSources?: readonly string[] | undefined },
  experimentDir: string,
): string[] {
  const settingSources = run.settingSources === undefined ? options.settingSources : run.settingSources.join(',')
  return [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-hook-events',
    '--permission-mode',
    options.permissionMode,
    '--max-budget-usd',
    String(run.budgetUsd),
    ...(spec.model === undefined ? [] : ['--model', spec.model]),
    ...(spec.maxTurns === undefined ? [] : ['--max-turns', String(spec.maxTurns)]),
    ...(settingSources === undefined ? [] : ['--setting-sources', settingSources]),
    ...(options.settings === undefined ? [] : ['--settings', path.resolve(experimentDir, options.settings)]),
    ...spec.args,
  ]
}

/** Anthropic's API, where the metering gateway forwards a real run's requests (unless the run's environment names another `ANTHROPIC_BASE_URL`). */
export const ANTHROPIC_API = 'https://api.anthropic.com'

/**
 * The environment the adapter adds to the harness's allowlist. The CLI's
 * model traffic goes to `ANTHROPIC_BASE_URL` (the supported setting): the
 * run's metering gateway, in front of the scripted model server
 * (`scriptedUrl`, with its key) or of the real API (`providerUrl`).
 */
export function claudeEnv(base: Readonly<Record<string, string>>, options: ClaudeCodeOptions, scriptedUrl: string | undefined, providerUrl?: string): Record<string, string> {
  return {
    ...base,
    // No auto-updates, telemetry or other side traffic: the run talks to its model only.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // As root the CLI refuses to bypass permissions unless it is told it runs in a sandbox (it does: a throwaway workspace).
    ...(isRoot() && options.permissionMode === 'bypassPermissions' ? { IS_SANDBOX: '1' } : {}),
    ...(providerUrl === undefined ? {} : { ANTHROPIC_BASE_URL: providerUrl }),
    ...(scriptedUrl === undefined ? {} : { ANTHROPIC_BASE_URL: scriptedUrl, ANTHROPIC_API_KEY: SCRIPTED_MODEL_KEY }),
  }
}

/** The Claude Code adapter. */
/** What `read` needs of a launch: the session's wrapped hooks (null: it has none to wrap). */
interface ClaudeLaunchContext {
  readonly hooks: WrappedHooks | null
}

/** The settings files of the workspace and the run's HOME whose hooks the CLI runs (the paths as the host sees them). */
function hookSettingsFiles(request: AgentRunRequest): string[] {
  const workspace = request.workspaceOnHost ?? request.workspace
  const files = [path.join(workspace, '.claude', 'settings.json'), path.join(workspace, '.claude', 'settings.local.json')]
  return request.env.HOME === undefined ? files : [...files, path.join(request.env.HOME, '.claude', 'settings.json')]
}

export class ClaudeCodeAgent extends CliAgent<ClaudeCodeOptions, ClaudeLaunchContext> {
  readonly kind = 'claude-code'
  readonly #experimentDir: string

  constructor(spec: AgentSpec, context: ClaudeCodeContext) {
    super(spec, context, () => ({ file: pinnedClaudeBin(), args: [] }), parseClaudeCodeOptions(spec.options))
    this.#experimentDir = context.experimentDir
  }

  /** `claude --version`, e.g. `2.1.197 (Claude Code)`. */
  protected readVersion(stdout: string): string | undefined {
    return stdout.trim() || undefined
  }

  /** The real API (or the run's own `ANTHROPIC_BASE_URL`), metered through the gateway. */
  protected override providerUpstream(request: AgentRunRequest): string {
    return request.env.ANTHROPIC_BASE_URL ?? ANTHROPIC_API
  }

  /**
   * An `ANTHROPIC_API_KEY` passed to the run is held by the gateway (`x-api-key` on every request to the provider);
   * the CLI gets a placeholder. An OAuth login (`claude login`, `ANTHROPIC_AUTH_TOKEN`) stays the CLI's.
   */
  protected override heldKey(request: AgentRunRequest): HeldKey | undefined {
    const key = request.env.ANTHROPIC_API_KEY
    if (key === undefined || key === '') return undefined
    return { headers: { 'x-api-key': key }, env: { ANTHROPIC_API_KEY: HELD_KEY_PLACEHOLDER } }
  }

  /**
   * The prompt goes to stdin; the model is the gateway's URL (with the scripted model, its key). The hooks of the
   * workspace's and HOME's settings are wrapped for the harness's count of their starts, its channel shown read-only.
   */
  protected async launch(request: AgentRunRequest, scriptedUrl: string | undefined, providerUrl?: string): Promise<CliLaunch<ClaudeLaunchContext>> {
    const hooks = await wrapClaudeHooks(hookSettingsFiles(request))
    // A settings file named by the experiment lives in the project: the sandbox shows the CLI that file alone.
    const readOnly = [...(this.options.settings === undefined ? [] : [path.resolve(this.#experimentDir, this.options.settings)]), ...(hooks === null ? [] : [hooks.channel.dir])]
    return {
      args: claudeArgs(this.spec, this.options, request, this.#experimentDir),
      env: claudeEnv(request.env, this.options, scriptedUrl, providerUrl),
      input: request.prompt,
      killGraceMs: this.options.killGraceSeconds * 1000,
      loopbackPorts: loopbackPorts(scriptedUrl ?? providerUrl),
      ...(readOnly.length === 0 ? {} : { readOnly }),
      context: { hooks },
      cleanup: async () => {
        await hooks?.stop()
        await hooks?.restore()
      },
    }
  }

  /** The CLI reports its own cost (`total_cost_usd`), turns and hook events. */
  protected async read({ end, transcriptSha256, context }: CliSession<ClaudeLaunchContext>): Promise<AgentRunResult> {
    const counted = context.hooks === null ? null : await context.hooks.stop()
    const stream = parseClaudeStream(end.stdout)
    const outcome = classifyClaudeRun(stream, end)
    if (outcome.kind === 'failure') throw new HarnessFailure(outcome.reason, outcome.message, { retryable: outcome.retryable })
    return {
      stop: outcome.stop,
      costUsd: outcome.costUsd,
      costSource: 'agent',
      tokens: outcome.tokens,
      turns: outcome.turns,
      toolCalls: stream.toolCalls,
      toolCallsBeforeFirstEdit: stream.toolCallsBeforeFirstEdit,
      wallMs: end.wallMs,
      model: stream.model,
      transcriptSha256,
      hooksFired: stream.hooksFired,
      hookStarts: counted === null ? null : { byEvent: counted.starts, foreign: counted.foreign },
    }
  }
}
