import { accessSync, constants, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { HarnessFailure, SpecError } from '../../errors.ts'
import type { AgentSpec } from '../../experiment/schema.ts'
import { CliAgent, type CliLaunch, type CliSession } from '../cli-agent.ts'
import { parseAdapterOptions } from '../options.ts'
import { loopbackPorts } from '../scripted-run.ts'
import { priceTokens } from '../pricing/price.ts'
import { genaiPricesVersion } from '../pricing/version.ts'
import { classifySession, type SessionRules } from '../session.ts'
import type { AgentRunRequest, AgentRunResult } from '../types.ts'
import { CommandOptionsSchema, type CommandOptions } from './options.ts'
import { commandFailure, parseCommandResult, type CommandResult } from './result.ts'
import { tail } from '../../shared/tail.ts'
import { sha256 } from '../../shared/sha256.ts'

/** Where the adapter resolves a relative `agent.bin`. */
export interface CommandContext {
  /** The experiment file's folder. */
  readonly experimentDir: string
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/** The executable `bin` names: a path (relative to the experiment's folder) or a name looked up on `PATH`. */
export function resolveExecutable(bin: string, experimentDir: string, pathVariable: string | undefined): string | null {
  if (bin.includes('/')) {
    const file = path.resolve(experimentDir, bin)
    return isExecutableFile(file) ? file : null
  }
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (dir !== '' && isExecutableFile(path.join(dir, bin))) return path.join(dir, bin)
  }
  return null
}

/**
 * `command`: any executable as the agent. It gets the prompt on stdin, the
 * workspace as its working directory and the run's environment plus
 * `TASK_OUTCOME_TASK`, `TASK_OUTCOME_ARM`, `TASK_OUTCOME_SEED`,
 * `TASK_OUTCOME_BUDGET_USD`, `TASK_OUTCOME_TIMEOUT_SECONDS` (and
 * `TASK_OUTCOME_MODEL`, `TASK_OUTCOME_MAX_TURNS` when the spec sets them);
 * it runs in a process group of its own, killed whole at the timeout. It
 * exits 0 and prints its result as the last line of stdout, a JSON object
 * documented (and validated) by `CommandResultSchema` in `result.ts`.
 *
 * Spec: `agent.bin` (required) is the executable, a path relative to the
 * experiment file's folder or a name on the run's `PATH`; `agent.args` its
 * arguments. Options: see `CommandOptionsSchema`.
 */
export class CommandAgent extends CliAgent<CommandOptions, { readonly name: string }> {
  readonly kind = 'command'
  readonly #bin: string
  readonly #experimentDir: string

  constructor(spec: AgentSpec, context: CommandContext) {
    if (spec.bin === undefined) throw new SpecError('the command agent needs agent.bin: the executable to run (a path relative to the experiment file, or a name on PATH)')
    const bin = spec.bin
    // The executable is found on each run's own PATH (see `#executable`); this one only names it.
    super(spec, context, () => ({ file: bin, args: [] }), parseAdapterOptions('command', CommandOptionsSchema, spec))
    this.#bin = bin
    this.#experimentDir = context.experimentDir
  }

  #executable(env: Readonly<Record<string, string>>): string {
    const file = resolveExecutable(this.#bin, this.#experimentDir, env.PATH)
    if (file === null) {
      throw new SpecError(
        `the command agent's agent.bin "${this.#bin}" is not an executable file ${this.#bin.includes('/') ? `(resolved against ${this.#experimentDir})` : "on the run's PATH"}: check the path and its execute permission`,
      )
    }
    return file
  }

  protected readVersion(): undefined {
    return undefined
  }

  /**
   * `options.version`, else the executable's name and the first 12 hex digits
   * of its SHA-256: a changed script is a changed agent, and a resume refuses
   * to mix them. The price table's version follows (results may be priced).
   */
  override async version(env: Readonly<Record<string, string>>): Promise<string> {
    const file = this.#executable(env)
    const own = this.options.version ?? `${path.basename(file)} sha256:${sha256(readFileSync(file)).slice(0, 12)}`
    return `command ${own}; genai-prices ${genaiPricesVersion}`
  }

  /** `options.modelApi`, metered through the gateway. */
  protected override providerUpstream(): string | undefined {
    return this.options.modelApi
  }

  /** A command may call no model at all (`allowZeroCost`); one that goes around its gateway keeps its own report beside the metered one. */
  protected override get meteringRequired(): boolean {
    return false
  }

  /** The prompt on stdin, the run's identity in `TASK_OUTCOME_*` variables, the gateway's URL in `TASK_OUTCOME_MODEL_URL`. */
  protected async launch(request: AgentRunRequest, _scriptedUrl: string | undefined, providerUrl?: string): Promise<CliLaunch<{ readonly name: string }>> {
    const file = this.#executable(request.env)
    const env: Record<string, string> = {
      ...request.env,
      TASK_OUTCOME_TASK: request.task.id,
      TASK_OUTCOME_ARM: request.arm,
      TASK_OUTCOME_SEED: String(request.seed),
      TASK_OUTCOME_BUDGET_USD: String(request.budgetUsd),
      TASK_OUTCOME_TIMEOUT_SECONDS: String(request.timeoutMs / 1000),
      ...(this.spec.model === undefined ? {} : { TASK_OUTCOME_MODEL: this.spec.model }),
      ...(this.spec.maxTurns === undefined ? {} : { TASK_OUTCOME_MAX_TURNS: String(this.spec.maxTurns) }),
      ...(providerUrl === undefined ? {} : { TASK_OUTCOME_MODEL_URL: providerUrl }),
    }
    return {
      command: { file, args: [] },
      args: this.spec.args,
      env,
      input: request.prompt,
      killGraceMs: this.options.killGraceSeconds * 1000,
      loopbackPorts: [...this.options.loopbackPorts, ...loopbackPorts(providerUrl)],
      context: { name: `command ${path.basename(file)}` },
    }
  }

  /** The last stdout line is the command's result; a timeout is measured whatever it printed. */
  protected async read({ end, transcriptSha256, context }: CliSession<{ readonly name: string }>): Promise<AgentRunResult> {
    const base = { wallMs: end.wallMs, transcriptSha256 }
    const reported = readReported(end.stdout, context.name)
    const { stop } = classifySession(
      commandRules(context.name, this.options, (result) => this.#cost(result, context.name)),
      reported,
      end,
    )
    if (stop === 'timeout') {
      return {
        stop,
        costUsd: 0,
        costSource: 'agent',
        tokens: null,
        turns: null,
        toolCalls: null,
        toolCallsBeforeFirstEdit: null,
        model: this.spec.model ?? null,
        hooksFired: null,
        ...base,
      }
    }
    const result = reported as CommandResult
    return {
      stop,
      ...this.#cost(result, context.name),
      tokens: result.tokens ?? null,
      turns: result.turns ?? null,
      toolCalls: result.toolCalls ?? null,
      toolCallsBeforeFirstEdit: result.toolCallsBeforeFirstEdit ?? null,
      model: result.model ?? this.spec.model ?? null,
      hooksFired: result.hooksFired ?? null,
      ...base,
    }
  }

  #cost(result: CommandResult, name: string): Pick<AgentRunResult, 'costUsd' | 'costSource'> {
    if (result.costUsd !== undefined) return { costUsd: result.costUsd, costSource: 'agent' }
    if (result.tokens == null || result.model == null)
      throw new HarnessFailure('no-result', `${name}: costUsd is missing and there are no tokens and model to price`, { retryable: false })
    const key = { model: result.model, ...(this.options.priceProvider === undefined ? {} : { provider: this.options.priceProvider }) }
    return { costUsd: priceTokens(result.tokens, key).costUsd, costSource: 'priced' }
  }
}

/** The command's result, or the failure that reading it was (a command that printed none, or a malformed one). */
function readReported(stdout: string, name: string): CommandResult | HarnessFailure {
  try {
    return parseCommandResult(stdout, name)
  } catch (error) {
    if (error instanceof HarnessFailure) return error
    throw error
  }
}

/** A command's sessions: its exit and its reported result decide; it measures its own timeouts. */
function commandRules(name: string, options: CommandOptions, cost: (result: CommandResult) => Pick<AgentRunResult, 'costUsd'>): SessionRules<CommandResult | HarnessFailure> {
  return {
    name,
    failureReason: () => 'agent-error',
    failedExit: (reported, end) => {
      if (!(reported instanceof HarnessFailure) && reported.status === 'error') return commandFailure(reported, name)
      return new HarnessFailure('crash', `${name} exited ${end.exitCode ?? `on ${end.signal}`}${end.stderr.trim() === '' ? '' : `: ${tail(end.stderr)}`}`)
    },
    missingResult: (reported) => {
      if (reported instanceof HarnessFailure) throw reported
      return null
    },
    resultStop: (reported) => {
      const result = reported as CommandResult
      if (result.status === 'error') throw commandFailure(result, name)
      return result.status === 'completed' ? undefined : result.status
    },
    unusedModel: (reported) =>
      cost(reported as CommandResult).costUsd === 0 && !options.allowZeroCost
        ? `${name} reported a completed run at $0: the model was never called (set agent.options.allowZeroCost if that is expected)`
        : null,
  }
}
