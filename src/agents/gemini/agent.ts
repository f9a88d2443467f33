import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { SpecError } from '../../errors.ts'
import type { AgentSpec } from '../../experiment/schema.ts'
import { parseAdapterOptions } from '../options.ts'
import { hasPrice, priceRequests, priceTokens, sumTokens, type PriceKey } from '../pricing/price.ts'
import { pricedAgentVersion } from '../pricing/version.ts'
import { runAgentProcess } from '../process.ts'
import { loopbackPorts, SCRIPTED_MODEL_KEY, startScriptedRun } from '../scripted-run.ts'
import { saveTranscript } from '../transcript.ts'
import type { Agent, AgentRunRequest, AgentRunResult } from '../types.ts'
import { readChat, type GeminiChat } from './chat.ts'
import { classifyGeminiSession } from './classify.ts'
import { GeminiOptionsSchema, type GeminiOptions } from './options.ts'
import { mergeSettings, writeRunSettings } from './settings.ts'
import { readGeminiStream } from './stream.ts'
import { resolveAgentPackage } from '../packages.ts'

/** The pinned `@google/gemini-cli` entry point, run with this Node. */
function pinnedGemini(): { file: string; args: string[] } {
  return { file: process.execPath, args: [resolveAgentPackage('gemini')] }
}

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
export class GeminiAgent implements Agent {
  readonly kind = 'gemini'
  readonly #spec: AgentSpec
  readonly #options: GeminiOptions
  readonly #model: string
  readonly #price: PriceKey

  constructor(spec: AgentSpec) {
    this.#spec = spec
    this.#options = parseAdapterOptions('gemini', GeminiOptionsSchema, spec)
    if (spec.model === undefined) {
      throw new SpecError('the gemini agent needs agent.model (e.g. "gemini-2.5-flash"): the CLI\'s default, "auto", routes between models and cannot be priced')
    }
    this.#model = spec.model
    this.#price = { model: this.#options.priceModel ?? spec.model, provider: this.#options.priceProvider }
    if (!hasPrice(this.#price)) {
      throw new SpecError(
        `the gemini agent's model "${this.#price.model}" (provider ${this.#price.provider}) has no price in @pydantic/genai-prices: set agent.options.priceModel to the model it is billed as`,
      )
    }
  }

  #command(args: readonly string[]): { file: string; args: string[] } {
    if (this.#spec.bin !== undefined) return { file: this.#spec.bin, args: [...args] }
    const pinned = pinnedGemini()
    return { file: pinned.file, args: [...pinned.args, ...args] }
  }

  /** `gemini --version` (e.g. `gemini-cli 0.61.0`) and the price table's version. */
  async version(env: Readonly<Record<string, string>>): Promise<string> {
    const result = await runAgentProcess({ ...this.#command(['--version']), cwd: process.cwd(), env, timeoutMs: 60_000 })
    const version = result.stdout.split('\n').find((line) => /^\d+\.\d+\.\d+/.test(line.trim()))?.trim()
    if (result.exitCode !== 0 || version === undefined) {
      throw new SpecError(`\`gemini --version\` failed (exit ${result.exitCode}): ${(result.stderr || result.stdout).trim().slice(-500)}`)
    }
    return pricedAgentVersion(`gemini-cli ${version}`)
  }

  /** The options in effect (defaults applied). */
  get options(): GeminiOptions {
    return this.#options
  }

  /** The CLI's arguments for a prompt. */
  cliArgs(prompt: string): string[] {
    return ['-p', prompt, '-o', 'stream-json', '--skip-trust', '--approval-mode', this.#options.approvalMode, '-m', this.#model, ...this.#spec.args]
  }

  async run(request: AgentRunRequest): Promise<AgentRunResult> {
    const scripted = this.#options.scriptedModel === undefined ? undefined : await startScriptedRun(request, this.#options.scriptedModel)
    try {
      if (scripted === undefined) return await this.#run(request, this.#options, {})
      const options: GeminiOptions = { ...this.#options, baseUrl: scripted.url, maxAttempts: this.#options.maxAttempts ?? 1 }
      return await this.#run(request, options, { GEMINI_API_KEY: SCRIPTED_MODEL_KEY })
    } finally {
      await scripted?.close()
    }
  }

  async #run(request: AgentRunRequest, options: GeminiOptions, extraEnv: Record<string, string>): Promise<AgentRunResult> {
    const env: Record<string, string> = { ...request.env, ...extraEnv }
    if (options.baseUrl !== undefined) env.GOOGLE_GEMINI_BASE_URL = options.baseUrl
    const home = env.HOME ?? path.join(path.dirname(request.transcriptPath), 'home')
    env.HOME = home
    await writeRunSettings(home, geminiRunSettings(this.#spec, options))
    const result = await runAgentProcess({
      ...this.#command(this.cliArgs(request.prompt)),
      cwd: request.workspace,
      env,
      ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox, loopbackPorts: loopbackPorts(options.baseUrl) }),
      timeoutMs: request.timeoutMs,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    })
    const transcriptSha256 = await saveTranscript(request.transcriptPath, result.stdout === '' ? '' : `${result.stdout}\n`)
    const stream = readGeminiStream(result.stdout.split('\n'))
    const chat = stream.sessionId === null ? null : await readChat(path.join(home, '.gemini'), stream.sessionId)
    if (chat !== null) await writeFile(path.join(path.dirname(request.transcriptPath), 'gemini-chat.jsonl'), chat.text)
    const outcome = classifyGeminiSession(stream, { exitCode: result.exitCode, timedOut: result.timedOut, aborted: result.aborted, stderr: result.stderr })

    const requests = chat?.requests ?? []
    const tokens = stream.tokens ?? (requests.length > 0 ? sumTokens(requests) : null)
    return {
      stop: outcome.stop,
      ...this.#cost(tokens, chat),
      tokens,
      turns: chat === null ? null : chat.requests.length,
      toolCalls: stream.toolCalls,
      toolCallsBeforeFirstEdit: stream.toolCallsBeforeFirstEdit,
      wallMs: result.wallMs,
      model: stream.model ?? this.#model,
      transcriptSha256,
      hooksFired: null,
    }
  }

  /**
   * Request by request when the chat record's responses add up to the
   * stream's totals (then no side request of the CLI was billed apart from
   * the conversation), else the totals.
   */
  #cost(tokens: AgentRunResult['tokens'], chat: GeminiChat | null): Pick<AgentRunResult, 'costUsd' | 'costSource'> {
    if (tokens === null) return { costUsd: 0, costSource: 'priced' }
    const requests = chat?.requests ?? []
    const sum = sumTokens(requests)
    const consistent = requests.length > 0 && (['input', 'output', 'cacheRead', 'cacheWrite'] as const).every((key) => sum[key] === tokens[key])
    const priced = consistent ? priceRequests(requests, this.#price) : priceTokens(tokens, this.#price)
    return { costUsd: priced.costUsd, costSource: 'priced' }
  }
}
