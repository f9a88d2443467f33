import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { ScriptedModelOptionsSchema, type ScriptedModelOptions } from '../scripted-model/options.ts'
import { startScriptedModel, type ScriptedModelServer } from '../scripted-model/index.ts'
import { learnScriptedTask } from '../scripted-model/task-knowledge.ts'
import type { AgentRunRequest } from './types.ts'
import type { Tokens } from './usage.ts'

/**
 * `options.scriptedModel` for the agents that drive a real CLI against a
 * model API (claude-code, codex, gemini): each run gets its own
 * scripted model server on 127.0.0.1, which learns the task's reference fix
 * and plays a seeded session, so the real CLI runs with no account and no
 * network. `true` means the defaults.
 */
export const ScriptedModelOptionSchema = z.union([z.literal(true).transform(() => ScriptedModelOptionsSchema.parse({})), ScriptedModelOptionsSchema]).optional()

/** The API key the CLIs are given for the scripted model server (any value passes; the server checks none). */
export const SCRIPTED_MODEL_KEY = 'scripted-model-key'

/**
 * The scripted model server's own count of a run, written beside the
 * transcript when the run ends (`writeScriptedCount`): how many model requests
 * it answered and the tokens it billed. A demo run's `metered` is checked
 * against it (the gateway's count must be the server's).
 */
export const SCRIPTED_COUNT_FILE = 'scripted-model-count.json'

/** What `SCRIPTED_COUNT_FILE` holds. */
export interface ScriptedCount {
  /** Model requests answered (not health checks or token counts). */
  readonly modelRequests: number
  /** The tokens the server billed, in the record's terms. */
  readonly tokens: Tokens
}

/** Writes the server's own count of the run into the transcript's folder. */
export async function writeScriptedCount(server: ScriptedModelServer, transcriptPath: string): Promise<void> {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = server.usage
  const count: ScriptedCount = {
    modelRequests: server.requests.filter((served) => served.route === 'model').length,
    tokens: { input: inputTokens, output: outputTokens, cacheRead: cacheReadTokens, cacheWrite: cacheWriteTokens },
  }
  await writeFile(path.join(path.dirname(transcriptPath), SCRIPTED_COUNT_FILE), `${JSON.stringify(count, null, 2)}\n`)
}

/** Starts the run's scripted model server (speaking every protocol it knows). Close it when the run ends. */
export async function startScriptedRun(request: AgentRunRequest, scripted: ScriptedModelOptions): Promise<ScriptedModelServer> {
  const task = await learnScriptedTask(request.task, request.workspaceOnHost ?? request.workspace, request.env)
  return startScriptedModel({
    task,
    seed: request.seed,
    workspace: request.workspace,
    ...(request.env.HOME === undefined ? {} : { home: request.env.HOME }),
    faults: scripted.faults,
    latencyMs: scripted.latencyMs,
    zeroUsage: scripted.zeroUsage,
    policy: {
      ...(scripted.wrongEditRate === undefined ? {} : { wrongEditRate: scripted.wrongEditRate }),
      ...(scripted.searches === undefined ? {} : { searches: scripted.searches }),
      ...(scripted.decoyReads === undefined ? {} : { decoyReads: scripted.decoyReads }),
      ...(scripted.hintedDecoyRate === undefined ? {} : { hintedDecoyRate: scripted.hintedDecoyRate }),
    },
  })
}

/**
 * The harness loopback ports behind model URLs (`http://127.0.0.1:<port>/…`):
 * a sandboxed agent reaches them at the same address inside its own network
 * namespace. Other URLs give none (a real API goes through the proxy).
 */
export function loopbackPorts(...urls: ReadonlyArray<string | undefined>): number[] {
  const ports: number[] = []
  for (const url of urls) {
    if (url === undefined) continue
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    if (parsed === undefined || !['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) continue
    const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80))
    if (!ports.includes(port)) ports.push(port)
  }
  return ports
}
