import type { AgentSpec } from '../experiment/schema.ts'
import { GoldAgent } from './builtin/gold.ts'
import { NoopAgent } from './builtin/noop.ts'
import { ClaudeCodeAgent } from './claude-code/adapter.ts'
import { CodexAgent } from './codex/agent.ts'
import { CommandAgent } from './command/agent.ts'
import { CursorAgent } from './cursor/agent.ts'
import { GeminiAgent } from './gemini/agent.ts'
import type { Agent } from './types.ts'

/** Where an adapter resolves relative paths (a `command` agent's script, say). */
export interface AgentContext {
  /** The experiment file's folder. */
  readonly experimentDir: string
  /** The project root. */
  readonly root: string
}

/** Makes the adapter an arm's agent spec names. */
export function createAgent(spec: AgentSpec, _context: AgentContext): Agent {
  switch (spec.kind) {
    case 'gold':
      return new GoldAgent()
    case 'noop':
      return new NoopAgent()
    case 'claude-code':
      return new ClaudeCodeAgent(spec, _context)
    case 'codex':
      return new CodexAgent(spec)
    case 'gemini':
      return new GeminiAgent(spec)
    case 'cursor':
      return new CursorAgent(spec)
    case 'command':
      return new CommandAgent(spec, _context)
    default:
      throw new Error(`agent "${spec.kind}" is not available yet`)
  }
}

export type { Agent, AgentRunRequest, AgentRunResult, AgentStop } from './types.ts'
