import { harnessVersion } from '../../version.ts'
import type { AgentRunResult, AgentStop } from '../types.ts'

/** The version of a built-in agent: its name at the harness's version. */
export function builtinVersion(kind: string): string {
  return `${kind}@${harnessVersion}`
}

/** A built-in agent's result: no model, no tokens, no cost, no turns. */
export function builtinResult(stop: AgentStop, startedMs: number): AgentRunResult {
  return {
    stop,
    costUsd: 0,
    costSource: 'agent',
    tokens: null,
    turns: 0,
    toolCalls: 0,
    toolCallsBeforeFirstEdit: null,
    wallMs: performance.now() - startedMs,
    model: null,
    transcriptSha256: null,
    hooksFired: null,
  }
}
