import { createHash } from 'node:crypto'
import { accessSync, constants, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { HarnessFailure, SpecError } from '../../errors.ts'
import type { AgentSpec } from '../../experiment/schema.ts'
import { parseAdapterOptions } from '../options.ts'
import { priceTokens } from '../pricing/price.ts'
import { genaiPricesVersion } from '../pricing/version.ts'
import { runAgentProcess } from '../process.ts'
import { saveTranscript } from '../transcript.ts'
import type { Agent, AgentRunRequest, AgentRunResult } from '../types.ts'
import { CommandOptionsSchema, type CommandOptions } from './options.ts'
import { commandFailure, parseCommandResult, type CommandResult } from './result.ts'

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

function tail(text: string, chars = 600): string {
  const trimmed = text.trim()
  return trimmed.length <= chars ? trimmed : `…${trimmed.slice(-chars)}`
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
export class CommandAgent implements Agent {
  readonly kind = 'command'
  readonly #spec: AgentSpec
  readonly #options: CommandOptions
  readonly #bin: string
  readonly #experimentDir: string

  constructor(spec: AgentSpec, context: CommandContext) {
    this.#spec = spec
    this.#options = parseAdapterOptions('command', CommandOptionsSchema, spec)
    if (spec.bin === undefined) throw new SpecError('the command agent needs agent.bin: the executable to run (a path relative to the experiment file, or a name on PATH)')
    this.#bin = spec.bin
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

  /**
   * `options.version`, else the executable's name and the first 12 hex digits
   * of its SHA-256: a changed script is a changed agent, and a resume refuses
   * to mix them. The price table's version follows (results may be priced).
   */
  async version(env: Readonly<Record<string, string>>): Promise<string> {
    const file = this.#executable(env)
    const own = this.#options.version ?? `${path.basename(file)} sha256:${createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12)}`
    return `command ${own}; genai-prices ${genaiPricesVersion}`
  }

  async run(request: AgentRunRequest): Promise<AgentRunResult> {
    const file = this.#executable(request.env)
    const name = `command ${path.basename(file)}`
    const env: Record<string, string> = {
      ...request.env,
      TASK_OUTCOME_TASK: request.task.id,
      TASK_OUTCOME_ARM: request.arm,
      TASK_OUTCOME_SEED: String(request.seed),
      TASK_OUTCOME_BUDGET_USD: String(request.budgetUsd),
      TASK_OUTCOME_TIMEOUT_SECONDS: String(request.timeoutMs / 1000),
      ...(this.#spec.model === undefined ? {} : { TASK_OUTCOME_MODEL: this.#spec.model }),
      ...(this.#spec.maxTurns === undefined ? {} : { TASK_OUTCOME_MAX_TURNS: String(this.#spec.maxTurns) }),
    }
    const result = await runAgentProcess({
      file,
      args: this.#spec.args,
      cwd: request.workspace,
      env,
      ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox, loopbackPorts: this.#options.loopbackPorts }),
      input: request.prompt,
      timeoutMs: request.timeoutMs,
      killGraceMs: this.#options.killGraceSeconds * 1000,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    })
    const transcriptSha256 = await saveTranscript(request.transcriptPath, result.stdout === '' ? '' : `${result.stdout}\n`)
    const base = { wallMs: result.wallMs, transcriptSha256 }
    if (result.aborted) throw new HarnessFailure('crash', `${name}: the run was aborted`, { retryable: false })
    if (result.timedOut) {
      return { stop: 'timeout', costUsd: 0, costSource: 'agent', tokens: null, turns: null, toolCalls: null, toolCallsBeforeFirstEdit: null, model: this.#spec.model ?? null, hooksFired: null, ...base }
    }
    if (result.exitCode !== 0) {
      let reported: CommandResult | undefined
      try {
        reported = parseCommandResult(result.stdout, name)
      } catch {
        // no result: the exit code is the failure
      }
      if (reported?.status === 'error') throw commandFailure(reported, name)
      throw new HarnessFailure('crash', `${name} exited ${result.exitCode ?? `on ${result.signal}`}${result.stderr.trim() === '' ? '' : `: ${tail(result.stderr)}`}`)
    }
    const reported = parseCommandResult(result.stdout, name)
    if (reported.status === 'error') throw commandFailure(reported, name)
    const cost = this.#cost(reported, name)
    if (reported.status === 'completed' && cost.costUsd === 0 && !this.#options.allowZeroCost) {
      throw new HarnessFailure('zero-cost', `${name} reported a completed run at $0: the model was never called (set agent.options.allowZeroCost if that is expected)`)
    }
    return {
      stop: reported.status,
      ...cost,
      tokens: reported.tokens ?? null,
      turns: reported.turns ?? null,
      toolCalls: reported.toolCalls ?? null,
      toolCallsBeforeFirstEdit: reported.toolCallsBeforeFirstEdit ?? null,
      model: reported.model ?? this.#spec.model ?? null,
      hooksFired: reported.hooksFired ?? null,
      ...base,
    }
  }

  #cost(result: CommandResult, name: string): Pick<AgentRunResult, 'costUsd' | 'costSource'> {
    if (result.costUsd !== undefined) return { costUsd: result.costUsd, costSource: 'agent' }
    if (result.tokens == null || result.model == null) throw new HarnessFailure('no-result', `${name}: costUsd is missing and there are no tokens and model to price`, { retryable: false })
    const key = { model: result.model, ...(this.#options.priceProvider === undefined ? {} : { provider: this.#options.priceProvider }) }
    return { costUsd: priceTokens(result.tokens, key).costUsd, costSource: 'priced' }
  }
}
