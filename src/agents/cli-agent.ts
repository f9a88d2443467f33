import path from 'node:path'
import { HarnessFailure, SpecError } from '../errors.ts'
import type { AgentSpec } from '../experiment/schema.ts'
import { MeteringGateway, runProcess, UNSANDBOXED_HOST, type ProcessResult } from '../sandbox/index.ts'
import type { ScriptedModelOptions } from '../scripted-model/options.ts'
import { AppendOnlyTail, type TailedFiles } from './append-only-tail.ts'
import { meteredUsage } from './metering.ts'
import { priceSession, sumTokens, type PriceKey } from './pricing/price.ts'
import { startScriptedRun, writeScriptedCount } from './scripted-run.ts'
import { TranscriptWriter } from './transcript.ts'
import type { Agent, AgentContext, AgentRunRequest, AgentRunResult, AgentStop } from './types.ts'
import type { Tokens } from './usage.ts'

/**
 * The skeleton every agent that runs a process shares (claude-code, codex,
 * gemini, cursor, command): the executable (a pinned npm dependency, or
 * `agent.bin`), `version()` with one error class, the scripted-model wrapper,
 * the process in a group of its own (inside the run's sandbox when it has
 * one) with its transcript written as it prints, and the cleanup. An adapter supplies only what is its own: how it
 * is launched for a run (arguments, environment, stdin) and how its output is
 * read (`read`, which parses the stream and classifies the session with
 * `classifySession` from `session.ts`).
 */

/** An executable and the arguments that come before the adapter's own. */
export interface CliCommand {
  readonly file: string
  readonly args: readonly string[]
}

/** A script (an agent package's entry point, from `packages.ts`) run with the harness's own Node. */
export function nodeScript(file: string): CliCommand {
  return { file: process.execPath, args: [file] }
}

/** The command `agent.bin` names: a path relative to the experiment file's folder, or a name on `PATH`. */
export function binCommand(bin: string, experimentDir: string): CliCommand {
  return { file: bin.includes('/') ? path.resolve(experimentDir, bin) : bin, args: [] }
}

/** How an adapter starts one run's process. */
export interface CliLaunch<Context> {
  /** The adapter's arguments (after the command's own). */
  readonly args: readonly string[]
  /** The process's whole environment. */
  readonly env: Readonly<Record<string, string>>
  /** Written to stdin, which is then closed; without it stdin is closed from the start. */
  readonly input?: string
  /** Another executable for this run (default: the agent's command). */
  readonly command?: CliCommand
  /** Between SIGTERM and SIGKILL when the run's group is killed. */
  readonly killGraceMs?: number
  /** Harness loopback ports the sandboxed process may reach (its scripted model server, a local gateway). */
  readonly loopbackPorts?: readonly number[]
  /** More read-only paths the sandboxed process needs (a package its script imports). */
  readonly readOnly?: readonly string[]
  /** The session's own usage files (a rollout, a chat record) under a folder, tailed from the host while it runs (`AppendOnlyTail`). */
  readonly usageFiles?: { readonly dir: string; readonly matches: (name: string) => boolean }
  /** What `read` needs of the launch (a home folder, the options in effect). */
  readonly context: Context
  /** Runs after the process and `read`, whatever happened (a scratch folder removed). */
  readonly cleanup?: () => Promise<void>
}

/** A provider key held by the harness (`CliAgent.heldKey`). */
export interface HeldKey {
  /** Set by the gateway on every forwarded request (replacing the agent's). */
  readonly headers: Readonly<Record<string, string>>
  /** Replace the key's variables in the agent's environment. */
  readonly env: Readonly<Record<string, string>>
}

/** What stands in the agent's environment for a key the harness holds: the CLI needs a value to start, never the key. */
export const HELD_KEY_PLACEHOLDER = 'held-by-the-task-outcome-gateway'

/** What `read` gets: the run, how its process ended, and the transcript's SHA-256. */
export interface CliSession<Context> {
  readonly request: AgentRunRequest
  readonly end: ProcessResult
  readonly transcriptSha256: string
  readonly context: Context
  /** The append-only copies of the launch's `usageFiles` (read these, never the files), or null when it named none. */
  readonly usageFiles: TailedFiles | null
}

/** What every process agent's options may hold: the scripted model switch. */
export interface CliAgentOptions {
  readonly scriptedModel?: ScriptedModelOptions | undefined
}

/** The base class of the agents that run a process; see the module comment. */
export abstract class CliAgent<Options extends object, Context = undefined> implements Agent {
  abstract readonly kind: string
  /** The arm's agent spec. */
  protected readonly spec: AgentSpec
  readonly #options: Options
  readonly #command: CliCommand

  /**
   * `pinned` is the adapter's own executable, used unless the spec names
   * `agent.bin` (relative to the experiment file's folder, or a name on
   * `PATH`); `options` are the parsed `agent.options`.
   */
  constructor(spec: AgentSpec, context: Pick<AgentContext, 'experimentDir'>, pinned: () => CliCommand, options: Options) {
    this.spec = spec
    this.#options = options
    this.#command = spec.bin === undefined ? pinned() : binCommand(spec.bin, context.experimentDir)
  }

  /** The options in effect (defaults applied). */
  get options(): Options {
    return this.#options
  }

  /** The agent's command with more arguments. */
  protected command(args: readonly string[], command: CliCommand = this.#command): { file: string; args: string[] } {
    return { file: command.file, args: [...command.args, ...args] }
  }

  /** The arguments that make the executable print its version. */
  protected get versionArgs(): readonly string[] {
    return ['--version']
  }

  /** The version as recorded, read from what `--version` printed; undefined when it printed none. */
  protected abstract readVersion(stdout: string): string | undefined

  /** Runs `--version`; a binary that does not run or prints no version is a `SpecError` naming it, before any run. */
  async version(env: Readonly<Record<string, string>>): Promise<string> {
    const command = this.command(this.versionArgs)
    // A version probe runs on the host, before any run and outside any workspace.
    const result = await runProcess(command, { cwd: process.cwd(), env: { ...env }, timeoutMs: 60_000, sandbox: UNSANDBOXED_HOST })
    const version = result.exitCode === 0 ? this.readVersion(result.stdout) : undefined
    if (version !== undefined) return version
    const said = (result.stderr || result.stdout).trim().slice(-500) || '(no output)'
    throw new SpecError(
      `the ${this.kind} agent's \`${[command.file, ...command.args.slice(this.#command.args.length)].join(' ')}\` failed (exit ${result.exitCode}${result.timedOut ? ', timed out' : ''}): ${said}. Check agent.bin, or reinstall the pinned CLI (npm ci).`,
    )
  }

  /**
   * How this run's process starts. `scriptedUrl` is the run's scripted model
   * server as the agent reaches it (through the metering gateway), when it
   * has one; `providerUrl` the gateway standing in for the real provider's
   * base URL (`providerUpstream`), when the adapter names one.
   */
  protected abstract launch(request: AgentRunRequest, scriptedUrl: string | undefined, providerUrl?: string): Promise<CliLaunch<Context>>

  /**
   * The real provider's base URL this run's model traffic goes to, which the
   * metering gateway forwards to (the adapter then points the agent at
   * `providerUrl` instead); undefined: the traffic is not metered (the agent
   * has no base-URL setting, or a `command` agent names no model API).
   */
  protected providerUpstream(_request: AgentRunRequest): string | undefined {
    return undefined
  }

  /**
   * The provider key the harness holds for a real provider's traffic, taken
   * from the run's environment (`env.pass`): the headers the gateway sets on
   * every forwarded request, and the placeholder variables that replace the
   * key in the agent's environment, so neither the CLI nor anything in its
   * session (hooks, MCP servers, tools) sees it. Undefined: the agent keeps
   * its own credentials (none in the environment, or the adapter holds none).
   */
  protected heldKey(_request: AgentRunRequest): HeldKey | undefined {
    return undefined
  }

  /**
   * False for an agent whose model protocol the gateway cannot read (Cursor's
   * backend speaks protobuf, without the provider's usage fields): no
   * gateway, `metered: null`, its own report stands.
   */
  protected get meterable(): boolean {
    return true
  }

  /** The price key metered requests are priced under (the adapter's `priceModel`), or undefined: the model the provider named. */
  protected get meteredPrice(): PriceKey | undefined {
    return undefined
  }

  /**
   * Whether a run whose gateway counted no usage while the agent reported
   * some is a harness failure (its traffic bypassed the gateway): true for
   * the CLI kinds, whose model traffic always goes through it.
   */
  protected get meteringRequired(): boolean {
    return true
  }

  /** Reads what the process printed: parses it, classifies the session (throwing `HarnessFailure`), and prices it. */
  protected abstract read(session: CliSession<Context>): Promise<AgentRunResult>

  async run(request: AgentRunRequest): Promise<AgentRunResult> {
    const { scriptedModel } = this.#options as CliAgentOptions
    const scripted = scriptedModel === undefined ? undefined : await startScriptedRun(request, scriptedModel)
    let gateway: MeteringGateway | undefined
    try {
      const upstream = this.meterable ? (scripted?.url ?? this.providerUpstream(request)) : undefined
      const held = upstream === undefined || scripted !== undefined ? undefined : this.heldKey(request)
      gateway = upstream === undefined ? undefined : await MeteringGateway.start({ upstream, ...(held === undefined ? {} : { headers: held.headers }) })
      const inside = held === undefined ? request : { ...request, env: { ...request.env, ...held.env } }
      const launch = await this.launch(inside, scripted === undefined ? undefined : (gateway?.url ?? scripted.url), scripted === undefined ? gateway?.url : undefined)
      try {
        const transcript = new TranscriptWriter(request.transcriptPath)
        const { file, args } = this.command(launch.args, launch.command)
        const tail = launch.usageFiles === undefined ? undefined : AppendOnlyTail.start(launch.usageFiles.dir, launch.usageFiles.matches)
        let usageFiles: TailedFiles | null = null
        const end = await runProcess(
          { file, args },
          {
            cwd: request.workspace,
            env: launch.env,
            ...(launch.input === undefined ? {} : { input: launch.input }),
            timeoutMs: request.timeoutMs,
            ...(launch.killGraceMs === undefined ? {} : { killGraceMs: launch.killGraceMs }),
            ...(request.sandbox === undefined
              ? { sandbox: UNSANDBOXED_HOST }
              : { sandbox: request.sandbox, loopbackPorts: launch.loopbackPorts ?? [], ...(launch.readOnly === undefined ? {} : { readOnly: launch.readOnly }) }),
            ...(request.signal === undefined ? {} : { signal: request.signal }),
            onLine: (line) => transcript.line(line),
          },
        ).finally(async () => {
          await transcript.close()
          usageFiles = (await tail?.stop()) ?? null
        })
        const transcriptSha256 = await transcript.close()
        const result = await this.#read({ request, end, transcriptSha256, context: launch.context, usageFiles }).catch((error: unknown) => {
          throw gateway === undefined ? error : withMeteredCount(error, gateway, this.meteredPrice)
        })
        return gateway === undefined ? { ...result, metered: null } : this.#metered(result, gateway)
      } finally {
        await launch.cleanup?.()
      }
    } finally {
      await gateway?.close()
      if (scripted !== undefined) await writeScriptedCount(scripted, request.transcriptPath).catch(() => undefined)
      await scripted?.close()
    }
  }

  /** `read`, once the session's usage files are known to have only grown (a rewrite, truncation or deletion is `tampered`). */
  async #read(session: CliSession<Context>): Promise<AgentRunResult> {
    const violations = session.usageFiles?.violations ?? []
    if (violations.length > 0) {
      throw new HarnessFailure(
        'tampered',
        `the ${this.kind} session's own usage record was changed under it: ${violations.join('; ')}. Something in the session rewrote what the CLI wrote, so its report (tokens, turns, model) cannot be trusted. The experiment stops; this run is not recorded (what it left and the gateway's count of it are kept in unrecorded/). Look at the arm's hooks, notify programs, MCP servers and tools.`,
        { retryable: false },
      )
    }
    return this.read(session)
  }

  #metered(result: AgentRunResult, gateway: MeteringGateway): AgentRunResult {
    const metered = meteredUsage(gateway.exchanges, this.meteredPrice)
    const reported = result.tokens === null ? 0 : result.tokens.input + result.tokens.output + result.tokens.cacheRead + result.tokens.cacheWrite
    if (this.meteringRequired && metered.requests === 0 && (reported > 0 || result.costUsd > 0)) {
      throw new HarnessFailure(
        'unmetered',
        `the ${this.kind} agent reported usage (${reported} tokens, $${result.costUsd}) but its metering gateway counted no model request: its traffic went around the gateway, so its cost cannot be measured. Check the agent's base-URL settings (agent.args, agent.options.config) and that nothing in the arm overrides them.`,
        { retryable: false },
      )
    }
    return { ...result, metered }
  }
}

/**
 * A `tampered` session's failure with the gateway's count of it attached
 * (`HarnessFailure.measured.metered`): its own report is forged, but what it
 * spent is known and kept with the unrecorded run. Other errors pass as they are.
 */
function withMeteredCount(error: unknown, gateway: MeteringGateway, price: PriceKey | undefined): unknown {
  if (!(error instanceof HarnessFailure) || error.reason !== 'tampered') return error
  let metered: unknown
  try {
    metered = meteredUsage(gateway.exchanges, price)
  } catch (pricing) {
    metered = { unpriced: pricing instanceof Error ? pricing.message : String(pricing) }
  }
  return new HarnessFailure('tampered', error.message, { retryable: false, cause: error, measured: { ...error.measured, metered } })
}

/** What a token-priced session (codex, gemini, cursor) was read as. */
export interface PricedSessionParts {
  readonly stop: AgentStop
  /** The session's totals as the stream reported them, or null (then the requests' sum, when there are any). */
  readonly tokens: Tokens | null
  /** Each model request's usage, when the agent keeps a record of them (none: priced from the totals). */
  readonly requests: readonly Tokens[]
  readonly price: PriceKey
  readonly turns: number | null
  readonly model: string
  readonly toolCalls: number
  readonly toolCallsBeforeFirstEdit: number | null
}

/** The run result of a token-priced session, priced with `priceSession`. */
export function pricedResult(session: CliSession<unknown>, parts: PricedSessionParts): AgentRunResult {
  const tokens = parts.tokens ?? (parts.requests.length > 0 ? sumTokens(parts.requests) : null)
  return {
    stop: parts.stop,
    ...priceSession(tokens, parts.requests, parts.price),
    tokens,
    turns: parts.turns,
    toolCalls: parts.toolCalls,
    toolCallsBeforeFirstEdit: parts.toolCallsBeforeFirstEdit,
    wallMs: session.end.wallMs,
    model: parts.model,
    transcriptSha256: session.transcriptSha256,
    hooksFired: null,
  }
}
