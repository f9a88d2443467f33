import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { AgentSpec } from '../../experiment/schema.ts'
import { CliAgent, HELD_KEY_PLACEHOLDER, nodeScript, pricedResult, type CliLaunch, type CliSession, type HeldKey } from '../cli-agent.ts'
import { parseAdapterOptions } from '../options.ts'
import { modelPrice, type PriceKey } from '../pricing/price.ts'
import { pricedAgentVersion } from '../pricing/version.ts'
import { resolveAgentPackage } from '../packages.ts'
import { loopbackPorts, SCRIPTED_MODEL_KEY } from '../scripted-run.ts'
import type { AgentContext, AgentRunRequest, AgentRunResult } from '../types.ts'
import { chatOf, chatsDir, isChatName } from './chat.ts'
import { classifyGeminiSession } from './classify.ts'
import { GeminiOptionsSchema, type GeminiOptions } from './options.ts'
import { mergeSettings, writeRunSettings } from './settings.ts'
import { readGeminiStream } from './stream.ts'

/** The settings the run needs, from the spec and its options (the options' `settings` last). */
export function geminiRunSettings(spec: AgentSpec, options: GeminiOptions): Record<string, unknown> {
  const authType = options.authType ?? (options.baseUrl === undefined ? undefined : 'gemini-api-key')
  const settings: Record<string, unknown> = {
    // No usage statistics: the run talks to its model and nothing else.
    privacy: { usageStatisticsEnabled: false },
    ...(authType === undefined ? {} : { security: { auth: { selectedType: authType } } }),
    ...(options.maxAttempts === undefined ? {} : { general: { maxAttempts: options.maxAttempts } }),
    ...(spec.maxTurns === undefined ? {} : { model: { maxSessionTurns: spec.maxTurns } }),
  }
  return mergeSettings(settings, options.settings)
}

/** Google's Gemini API, where the metering gateway forwards a real run's requests unless `options.baseUrl` names another. */
export const GEMINI_API = 'https://generativelanguage.googleapis.com'

/**
 * `gemini`: the Gemini CLI (`gemini -p PROMPT -o stream-json`), priced from
 * its tokens with `@pydantic/genai-prices`; thinking tokens bill at the
 * output rate. The workspace is trusted for the session (`--skip-trust`,
 * else the CLI exits 55) and tools run without asking (`--approval-mode
 * yolo`). Exit 41 (no or rejected credentials) fails fast.
 *
 * Spec: `agent.model` is required (it is run with `-m` and priced: the CLI's
 * default, `auto`, routes between models and cannot be priced);
 * `agent.maxTurns` becomes `model.maxSessionTurns`; `agent.bin` replaces the
 * pinned `@google/gemini-cli`; `agent.args` go after the adapter's flags.
 * Options: see `GeminiOptionsSchema`.
 */
export class GeminiAgent extends CliAgent<GeminiOptions, { readonly home: string }> {
  readonly kind = 'gemini'
  readonly #model: string
  readonly #price: PriceKey

  constructor(spec: AgentSpec, context: Pick<AgentContext, 'experimentDir'> = { experimentDir: process.cwd() }) {
    super(spec, context, () => nodeScript(resolveAgentPackage('gemini')), parseAdapterOptions('gemini', GeminiOptionsSchema, spec))
    ;({ model: this.#model, price: this.#price } = modelPrice(
      'gemini',
      spec.model,
      this.options,
      ' (e.g. "gemini-2.5-flash"): the CLI\'s default, "auto", routes between models and cannot be priced',
    ))
  }

  /** `gemini --version` (e.g. `gemini-cli 0.61.0`) and the price table's version. */
  protected readVersion(stdout: string): string | undefined {
    const version = stdout
      .split('\n')
      .find((line) => /^\d+\.\d+\.\d+/.test(line.trim()))
      ?.trim()
    return version === undefined ? undefined : pricedAgentVersion(`gemini-cli ${version}`)
  }

  /** The CLI's arguments for a prompt. */
  cliArgs(prompt: string): string[] {
    return ['-p', prompt, '-o', 'stream-json', '--skip-trust', '--approval-mode', this.options.approvalMode, '-m', this.#model, ...this.spec.args]
  }

  /** The Gemini API (`options.baseUrl`, else Google's), metered through the gateway (`GOOGLE_GEMINI_BASE_URL`). */
  protected override providerUpstream(): string {
    return this.options.baseUrl ?? GEMINI_API
  }

  protected override get meteredPrice(): PriceKey {
    return this.#price
  }

  /**
   * `GEMINI_API_KEY` (from `env.pass`) is held by the gateway (`x-goog-api-key` on every request to the provider);
   * the CLI, its hooks, MCP servers and tools get a placeholder. A Google login or Vertex AI credentials stay the CLI's.
   */
  protected override heldKey(request: AgentRunRequest): HeldKey | undefined {
    const key = request.env.GEMINI_API_KEY
    if (key === undefined || key === '') return undefined
    return { headers: { 'x-goog-api-key': key }, env: { GEMINI_API_KEY: HELD_KEY_PLACEHOLDER } }
  }

  /** The run's HOME holds its settings; with the scripted model, its URL and key, one API attempt per request unless the options say otherwise. */
  protected async launch(request: AgentRunRequest, scriptedUrl: string | undefined, providerUrl?: string): Promise<CliLaunch<{ readonly home: string }>> {
    const options: GeminiOptions =
      scriptedUrl === undefined
        ? { ...this.options, ...(providerUrl === undefined ? {} : { baseUrl: providerUrl }) }
        : { ...this.options, baseUrl: scriptedUrl, maxAttempts: this.options.maxAttempts ?? 1 }
    const env: Record<string, string> = { ...request.env, ...(scriptedUrl === undefined ? {} : { GEMINI_API_KEY: SCRIPTED_MODEL_KEY }) }
    if (options.baseUrl !== undefined) env.GOOGLE_GEMINI_BASE_URL = options.baseUrl
    const home = env.HOME ?? path.join(path.dirname(request.transcriptPath), 'home')
    env.HOME = home
    await writeRunSettings(home, geminiRunSettings(this.spec, options))
    return {
      args: this.cliArgs(request.prompt),
      env,
      loopbackPorts: loopbackPorts(options.baseUrl),
      usageFiles: { dir: chatsDir(path.join(home, '.gemini')), matches: isChatName },
      context: { home },
    }
  }

  /** The stream, then the session's chat record (kept beside the transcript) for per-request usage and turns. */
  protected async read(session: CliSession<{ readonly home: string }>): Promise<AgentRunResult> {
    const stream = readGeminiStream(session.end.stdout.split('\n'))
    const chat = stream.sessionId === null || session.usageFiles === null ? null : chatOf(session.usageFiles.copies, stream.sessionId)
    if (chat !== null) await writeFile(path.join(path.dirname(session.request.transcriptPath), 'gemini-chat.jsonl'), chat.text)
    return pricedResult(session, {
      ...classifyGeminiSession(stream, session.end),
      tokens: stream.tokens,
      requests: chat?.requests ?? [],
      price: this.#price,
      turns: chat === null ? null : chat.requests.length,
      model: stream.model ?? this.#model,
      toolCalls: stream.toolCalls,
      toolCallsBeforeFirstEdit: stream.toolCallsBeforeFirstEdit,
    })
  }
}
