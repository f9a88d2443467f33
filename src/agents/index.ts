import type { AgentSpec } from '../experiment/schema.ts'
import { GoldAgent } from './builtin/gold.ts'
import { NoopAgent } from './builtin/noop.ts'
import { ClaudeCodeAgent } from './claude-code/agent.ts'
import { CodexAgent } from './codex/agent.ts'
import { CommandAgent } from './command/agent.ts'
import { CursorAgent } from './cursor/agent.ts'
import { GeminiAgent } from './gemini/agent.ts'
import type { Agent, AgentContext } from './types.ts'

/** Makes one kind of agent from an arm's agent spec. */
export type AgentFactory = (spec: AgentSpec, context: AgentContext) => Agent

/**
 * Every adapter, by the `agent.kind` that names it. The `satisfies` makes a
 * kind the experiment schema accepts without an adapter here (or an adapter
 * for a kind it does not accept) a type error, so the two lists cannot drift.
 */
export const agentAdapters = {
  gold: () => new GoldAgent(),
  noop: () => new NoopAgent(),
  'claude-code': (spec, context) => new ClaudeCodeAgent(spec, context),
  codex: (spec, context) => new CodexAgent(spec, context),
  gemini: (spec, context) => new GeminiAgent(spec, context),
  cursor: (spec, context) => new CursorAgent(spec, context),
  command: (spec, context) => new CommandAgent(spec, context),
} as const satisfies Record<AgentSpec['kind'], AgentFactory>

/** Makes the adapter an arm's agent spec names. */
export function createAgent(spec: AgentSpec, context: AgentContext): Agent {
  const factory: AgentFactory = agentAdapters[spec.kind]
  return factory(spec, context)
}

export type { Agent, AgentContext, AgentRunRequest, AgentRunResult, AgentStop } from './types.ts'
