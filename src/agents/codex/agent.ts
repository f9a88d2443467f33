import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { SpecError } from '../../errors.ts'
import type { AgentSpec } from '../../experiment/schema.ts'
import { hasPrice, priceRequests, priceTokens, sumTokens, type PriceKey } from '../pricing/price.ts'
import { pricedAgentVersion } from '../pricing/version.ts'
import { runAgentProcess } from '../process.ts'
import { loopbackPorts, SCRIPTED_MODEL_KEY, startScriptedRun } from '../scripted-run.ts'
import { saveTranscript } from '../transcript.ts'
import type { Agent, AgentRunRequest, AgentRunResult } from '../types.ts'
import { classifyCodexSession } from './classify.ts'
import { parseAdapterOptions } from '../options.ts'
import { CodexOptionsSchema, type CodexOptions } from './options.ts'
import { readRollout, type CodexRollout } from './rollout.ts'
import { readCodexStream } from './stream.ts'
import { resolveAgentPackage } from '../packages.ts'

/** The provider name the adapter defines when `options.baseUrl` is set. */
const PROVIDER = 'task-outcome'

/** The pinned `@openai/codex` entry point, run with this Node. */
function pinnedCodex(): { file: string; args: string[] } {
  return { file: process.execPath, args: [resolveAgentPackage('codex')] }
}

function toml(value: string): string {
  return JSON.stringify(value)
}

/** The `-c` overrides for the options. */
export function codexConfigArgs(options: CodexOptions): string[] {
  const config: Record<string, string> = {}
  if (options.baseUrl !== undefined) {
    const key = `model_providers.${PROVIDER}`
    config.model_provider = toml(PROVIDER)
    config[`${key}.name`] = toml('task-outcome provider')
    config[`${key}.base_url`] = toml(options.baseUrl)
    config[`${key}.env_key`] = toml(options.envKey)
    config[`${key}.wire_api`] = toml('responses')
    config[`${key}.supports_websockets`] = 'false'
    if (options.requestMaxRetries !== undefined) config[`${key}.request_max_retries`] = String(options.requestMaxRetries)
    if (options.streamMaxRetries !== undefined) config[`${key}.stream_max_retries`] = String(options.streamMaxRetries)
    if (options.streamIdleTimeoutMs !== undefined) config[`${key}.stream_idle_timeout_ms`] = String(options.streamIdleTimeoutMs)
  }
  Object.assign(config, options.config)
  return Object.entries(config).flatMap(([key, value]) => ['-c', `${key}=${value}`])
}

/**
 * `codex`: the Codex CLI (`codex exec --json`), priced from its tokens with
 * `@pydantic/genai-prices`. Stdin is closed and the harness's wall-clock
 * timeout always applies: offline, Codex reconnects forever instead of
 * failing. Edits are Codex's `file_change` items (its `apply_patch` tool).
 *
 * Spec: `agent.model` is required (it is run with `-m` and priced);
 * `agent.bin` replaces the pinned `@openai/codex`; `agent.args` go after the
 * adapter's own flags. Options: see `CodexOptionsSchema`.
 */
export class CodexAgent implements Agent {
  readonly kind = 'codex'
  readonly #spec: AgentSpec
  readonly #options: CodexOptions
  readonly #model: string
  readonly #price: PriceKey

  constructor(spec: AgentSpec) {
    this.#spec = spec
    this.#options = parseAdapterOptions('codex', CodexOptionsSchema, spec)
    if (spec.model === undefined) throw new SpecError('the codex agent needs agent.model: the model Codex runs (-m) and the one its tokens are priced as')
    this.#model = spec.model
    this.#price = { model: this.#options.priceModel ?? spec.model, provider: this.#options.priceProvider }
    if (!hasPrice(this.#price)) {
      throw new SpecError(
        `the codex agent's model "${this.#price.model}" (provider ${this.#price.provider}) has no price in @pydantic/genai-prices: set agent.options.priceModel to the model it is billed as`,
      )
    }
  }

  #command(args: readonly string[]): { file: string; args: string[] } {
    if (this.#spec.bin !== undefined) return { file: this.#spec.bin, args: [...args] }
    const pinned = pinnedCodex()
    return { file: pinned.file, args: [...pinned.args, ...args] }
  }

  /** `codex --version` (e.g. `codex-cli 0.171.0`) and the price table's version. */
  async version(env: Readonly<Record<string, string>>): Promise<string> {
    const command = this.#command(['--version'])
    const result = await runAgentProcess({ ...command, cwd: process.cwd(), env, timeoutMs: 60_000 })
    const line = result.stdout.split('\n').find((text) => /\d+\.\d+/.test(text))?.trim()
    if (result.exitCode !== 0 || line === undefined) {
      throw new SpecError(`\`codex --version\` failed (exit ${result.exitCode}): ${(result.stderr || result.stdout).trim().slice(-500)}`)
    }
    return pricedAgentVersion(line)
  }

  /** The options in effect (defaults applied). */
  get options(): CodexOptions {
    return this.#options
  }

  /** The arguments of `codex exec` for a prompt. */
  execArgs(prompt: string, options: CodexOptions = this.#options): string[] {
    return [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      options.sandbox,
      '-m',
      this.#model,
      ...codexConfigArgs(options),
      ...this.#spec.args,
      '--',
      prompt,
    ]
  }

  async run(request: AgentRunRequest): Promise<AgentRunResult> {
    const scripted = this.#options.scriptedModel === undefined ? undefined : await startScriptedRun(request, this.#options.scriptedModel)
    try {
      if (scripted === undefined) return await this.#run(request, this.#options, {})
      const options: CodexOptions = {
        ...this.#options,
        baseUrl: `${scripted.url}/v1`,
        envKey: 'TASK_OUTCOME_SCRIPTED_MODEL_KEY',
        requestMaxRetries: this.#options.requestMaxRetries ?? 0,
        streamMaxRetries: this.#options.streamMaxRetries ?? 0,
      }
      return await this.#run(request, options, { TASK_OUTCOME_SCRIPTED_MODEL_KEY: SCRIPTED_MODEL_KEY })
    } finally {
      await scripted?.close()
    }
  }

  async #run(request: AgentRunRequest, options: CodexOptions, extraEnv: Record<string, string>): Promise<AgentRunResult> {
    const env: Record<string, string> = { ...request.env, ...extraEnv }
    const codexHome = env.CODEX_HOME ?? path.join(env.HOME ?? path.join(path.dirname(request.transcriptPath), 'home'), '.codex')
    env.CODEX_HOME = codexHome
    await mkdir(codexHome, { recursive: true })
    const result = await runAgentProcess({
      ...this.#command(this.execArgs(request.prompt, options)),
      cwd: request.workspace,
      env,
      ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox, loopbackPorts: loopbackPorts(options.baseUrl) }),
      timeoutMs: request.timeoutMs,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    })
    const transcriptSha256 = await saveTranscript(request.transcriptPath, result.stdout === '' ? '' : `${result.stdout}\n`)
    const stream = readCodexStream(result.stdout.split('\n'))
    const rollout = stream.threadId === null ? null : await readRollout(codexHome, stream.threadId)
    if (rollout !== null) await writeFile(path.join(path.dirname(request.transcriptPath), 'codex-rollout.jsonl'), rollout.text)
    const outcome = classifyCodexSession(stream, { exitCode: result.exitCode, timedOut: result.timedOut, aborted: result.aborted, stderr: result.stderr })

    const requests = rollout?.requests ?? []
    const tokens = stream.usage ?? (requests.length > 0 ? sumTokens(requests) : null)
    return {
      stop: outcome.stop,
      ...this.#cost(tokens, rollout),
      tokens,
      turns: rollout === null ? null : rollout.requests.length,
      toolCalls: stream.toolCalls,
      toolCallsBeforeFirstEdit: stream.toolCallsBeforeFirstEdit,
      wallMs: result.wallMs,
      model: rollout?.model ?? this.#model,
      transcriptSha256,
      hooksFired: null,
    }
  }

  /**
   * Request by request when the rollout's per-request usage adds up to the
   * stream's total (long-context prices apply per request), else the total.
   */
  #cost(tokens: AgentRunResult['tokens'], rollout: CodexRollout | null): Pick<AgentRunResult, 'costUsd' | 'costSource'> {
    if (tokens === null) return { costUsd: 0, costSource: 'priced' }
    const requests = rollout?.requests ?? []
    const sum = sumTokens(requests)
    const consistent = requests.length > 0 && (['input', 'output', 'cacheRead', 'cacheWrite'] as const).every((key) => sum[key] === tokens[key])
    const priced = consistent ? priceRequests(requests, this.#price) : priceTokens(tokens, this.#price)
    return { costUsd: priced.costUsd, costSource: 'priced' }
  }
}
