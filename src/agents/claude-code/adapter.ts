import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import path from 'node:path'
import { HarnessFailure } from '../../errors.ts'
import type { AgentSpec } from '../../experiment/schema.ts'
import { runAgentProcess } from '../process.ts'
import { loopbackPorts, startScriptedRun } from '../scripted-run.ts'
import type { Agent, AgentRunRequest, AgentRunResult } from '../types.ts'
import { classifyClaudeRun } from './classify.ts'
import { parseClaudeCodeOptions, type ClaudeCodeOptions } from './options.ts'
import { ClaudeStreamReader } from './stream.ts'
import { resolveAgentPackage } from '../packages.ts'

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
export const SCRIPTED_API_KEY = 'scripted-model-key'

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

/** The environment the adapter adds to the harness's allowlist. */
export function claudeEnv(base: Readonly<Record<string, string>>, options: ClaudeCodeOptions, scriptedUrl: string | undefined): Record<string, string> {
  return {
    ...base,
    // No auto-updates, telemetry or other side traffic: the run talks to its model only.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // As root the CLI refuses to bypass permissions unless it is told it runs in a sandbox (it does: a throwaway workspace).
    ...(isRoot() && options.permissionMode === 'bypassPermissions' ? { IS_SANDBOX: '1' } : {}),
    ...(scriptedUrl === undefined ? {} : { ANTHROPIC_BASE_URL: scriptedUrl, ANTHROPIC_API_KEY: SCRIPTED_API_KEY }),
  }
}

/** The Claude Code adapter. */
export class ClaudeCodeAgent implements Agent {
  readonly kind = 'claude-code'
  readonly #spec: AgentSpec
  readonly #options: ClaudeCodeOptions
  readonly #bin: string
  readonly #experimentDir: string

  constructor(spec: AgentSpec, context: ClaudeCodeContext) {
    this.#spec = spec
    this.#options = parseClaudeCodeOptions(spec.options)
    this.#experimentDir = context.experimentDir
    this.#bin = spec.bin === undefined ? pinnedClaudeBin() : spec.bin.includes('/') ? path.resolve(context.experimentDir, spec.bin) : spec.bin
  }

  /** The options in effect (defaults applied). */
  get options(): ClaudeCodeOptions {
    return this.#options
  }

  /** `claude --version`, e.g. `2.1.197 (Claude Code)`. */
  async version(env: Readonly<Record<string, string>>): Promise<string> {
    const result = await runAgentProcess({ file: this.#bin, args: ['--version'], cwd: process.cwd(), env: { ...env }, timeoutMs: 60_000 })
    const version = result.stdout.trim()
    if (result.exitCode !== 0 || version === '') {
      throw new HarnessFailure('crash', `${this.#bin} --version failed (exit ${result.exitCode}${result.timedOut ? ', timed out' : ''}): ${result.stderr.trim() || '(no output)'}`, {
        retryable: false,
      })
    }
    return version
  }

  async run(request: AgentRunRequest): Promise<AgentRunResult> {
    const scripted = this.#options.scriptedModel === undefined ? undefined : await startScriptedRun(request, this.#options.scriptedModel)
    try {
      const reader = new ClaudeStreamReader()
      const hash = createHash('sha256')
      const transcript = createWriteStream(request.transcriptPath)
      const transcriptDone = new Promise<void>((resolve, reject) => {
        transcript.once('finish', resolve)
        transcript.once('error', reject)
      })
      transcriptDone.catch(() => undefined)
      const end = await runAgentProcess({
        file: this.#bin,
        args: claudeArgs(this.#spec, this.#options, request, this.#experimentDir),
        cwd: request.workspace,
        env: claudeEnv(request.env, this.#options, scripted?.url),
        ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox, loopbackPorts: loopbackPorts(scripted?.url) }),
        input: request.prompt,
        timeoutMs: request.timeoutMs,
        killGraceMs: this.#options.killGraceSeconds * 1000,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        onLine: (line) => {
          const raw = `${line}\n`
          transcript.write(raw)
          hash.update(raw)
          reader.push(line)
        },
      }).finally(() => transcript.end())
      await transcriptDone
      const stream = reader.summary()
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
        transcriptSha256: hash.digest('hex'),
        hooksFired: stream.hooksFired,
      }
    } finally {
      await scripted?.close()
    }
  }
}
