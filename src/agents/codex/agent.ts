import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { AgentSpec } from '../../experiment/schema.ts'
import { CliAgent, HELD_KEY_PLACEHOLDER, nodeScript, pricedResult, type CliLaunch, type CliSession, type HeldKey } from '../cli-agent.ts'
import { parseAdapterOptions } from '../options.ts'
import { modelPrice, type PriceKey } from '../pricing/price.ts'
import { pricedAgentVersion } from '../pricing/version.ts'
import { resolveAgentPackage } from '../packages.ts'
import { loopbackPorts, SCRIPTED_MODEL_KEY } from '../scripted-run.ts'
import type { AgentContext, AgentRunRequest, AgentRunResult } from '../types.ts'
import { codexBubblewrapDir } from './bubblewrap.ts'
import { classifyCodexSession } from './classify.ts'
import { CodexOptionsSchema, type CodexOptions } from './options.ts'
import { isRolloutName, rolloutOf, rolloutsDir } from './rollout.ts'
import { readCodexStream } from './stream.ts'

/** OpenAI's API, where the metering gateway forwards a real run's requests unless `options.baseUrl` names another. */
export const OPENAI_API = 'https://api.openai.com/v1'

/** The provider name the adapter defines when `options.baseUrl` is set. */
const PROVIDER = 'task-outcome'

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
export class CodexAgent extends CliAgent<CodexOptions, { readonly codexHome: string }> {
  readonly kind = 'codex'
  readonly #model: string
  readonly #price: PriceKey

  constructor(spec: AgentSpec, context: Pick<AgentContext, 'experimentDir'> = { experimentDir: process.cwd() }) {
    super(spec, context, () => nodeScript(resolveAgentPackage('codex')), parseAdapterOptions('codex', CodexOptionsSchema, spec))
    ;({ model: this.#model, price: this.#price } = modelPrice('codex', spec.model, this.options, ': the model Codex runs (-m) and the one its tokens are priced as'))
  }

  /** `codex --version` (e.g. `codex-cli 0.171.0`) and the price table's version. */
  protected readVersion(stdout: string): string | undefined {
    const line = stdout
      .split('\n')
      .find((text) => /\d+\.\d+/.test(text))
      ?.trim()
    return line === undefined ? undefined : pricedAgentVersion(line)
  }

  /** The arguments of `codex exec` for a prompt. */
  execArgs(prompt: string, options: CodexOptions = this.options, inHarnessSandbox = false): string[] {
    return [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      options.sandbox ?? (inHarnessSandbox ? 'danger-full-access' : 'workspace-write'),
      '-m',
      this.#model,
      ...codexConfigArgs(options),
      ...this.spec.args,
      '--',
      prompt,
    ]
  }

  /** The provider's base URL (`options.baseUrl`, else OpenAI's API), metered through the gateway. */
  protected override providerUpstream(): string {
    return this.options.baseUrl ?? OPENAI_API
  }

  protected override get meteredPrice(): PriceKey {
    return this.#price
  }

  /**
   * The provider key in `options.envKey` (default `OPENAI_API_KEY`, from `env.pass`) is held by the gateway
   * (`authorization: Bearer …` on every request to the provider); Codex, its notify program, MCP servers and tools
   * get a placeholder. A `codex login` (auth.json in CODEX_HOME) stays Codex's.
   */
  protected override heldKey(request: AgentRunRequest): HeldKey | undefined {
    const key = request.env[this.options.envKey]
    if (key === undefined || key === '') return undefined
    return { headers: { authorization: `Bearer ${key}` }, env: { [this.options.envKey]: HELD_KEY_PLACEHOLDER } }
  }

  /**
   * The gateway's URL as the provider's `base_url` (the scripted model's key, and no retries unless the options
   * ask for them, with the scripted model; the options' `envKey` otherwise).
   */
  protected async launch(request: AgentRunRequest, scriptedUrl: string | undefined, providerUrl?: string): Promise<CliLaunch<{ readonly codexHome: string }>> {
    const options: CodexOptions =
      scriptedUrl === undefined
        ? { ...this.options, ...(providerUrl === undefined ? {} : { baseUrl: providerUrl }) }
        : {
            ...this.options,
            baseUrl: `${scriptedUrl}/v1`,
            envKey: 'TASK_OUTCOME_SCRIPTED_MODEL_KEY',
            requestMaxRetries: this.options.requestMaxRetries ?? 0,
            streamMaxRetries: this.options.streamMaxRetries ?? 0,
          }
    const env: Record<string, string> = { ...request.env, ...(scriptedUrl === undefined ? {} : { TASK_OUTCOME_SCRIPTED_MODEL_KEY: SCRIPTED_MODEL_KEY }) }
    const codexHome = env.CODEX_HOME ?? path.join(env.HOME ?? path.join(path.dirname(request.transcriptPath), 'home'), '.codex')
    env.CODEX_HOME = codexHome
    // Codex's sandbox runs on the bubblewrap it ships, not an older one on the host (see codexBubblewrapDir).
    const bubblewrapDir = this.spec.bin === undefined ? codexBubblewrapDir(resolveAgentPackage('codex')) : null
    if (bubblewrapDir !== null) env.PATH = env.PATH === undefined || env.PATH === '' ? bubblewrapDir : `${bubblewrapDir}${path.delimiter}${env.PATH}`
    await mkdir(codexHome, { recursive: true })
    return {
      args: this.execArgs(request.prompt, options, request.sandbox !== undefined),
      env,
      loopbackPorts: loopbackPorts(options.baseUrl),
      usageFiles: { dir: rolloutsDir(codexHome), matches: isRolloutName },
      context: { codexHome },
    }
  }

  /** The stream, then the session's rollout as the harness tailed it (kept beside the transcript) for per-request usage and turns. */
  protected async read(session: CliSession<{ readonly codexHome: string }>): Promise<AgentRunResult> {
    const stream = readCodexStream(session.end.stdout.split('\n'))
    const rollout = stream.threadId === null || session.usageFiles === null ? null : rolloutOf(session.usageFiles.copies, stream.threadId)
    if (rollout !== null) await writeFile(path.join(path.dirname(session.request.transcriptPath), 'codex-rollout.jsonl'), rollout.text)
    return pricedResult(session, {
      ...classifyCodexSession(stream, session.end),
      tokens: stream.usage,
      requests: rollout?.requests ?? [],
      price: this.#price,
      turns: rollout === null ? null : rollout.requests.length,
      model: rollout?.model ?? this.#model,
      toolCalls: stream.toolCalls,
      toolCallsBeforeFirstEdit: stream.toolCallsBeforeFirstEdit,
    })
  }
}
