import { protocolHandlers } from './protocols.ts'
import { startScriptedModelServer as startServer, type ScriptedModelServer, type ScriptedModelServerOptions } from './server.ts'

/**
 * The scripted model server: a stand-in for a model API on 127.0.0.1 that the
 * real agent CLIs talk to. Start one per run.
 */

/** Options of `startScriptedModel`; `handlers` defaults to every registered protocol. */
export type StartScriptedModelOptions = Omit<ScriptedModelServerOptions, 'handlers'> & {
  readonly handlers?: ScriptedModelServerOptions['handlers']
}

/** Starts a scripted model server speaking every registered protocol (or the `handlers` given). */
export function startScriptedModel(options: StartScriptedModelOptions): Promise<ScriptedModelServer> {
  return startServer({ ...options, handlers: options.handlers ?? protocolHandlers })
}

export type { ScriptedModelServer, ScriptedModelServerOptions, ProtocolHandler, HandlerContext, Exchange, RouteKind, ServedRequest } from './server.ts'
export { sendJson } from './server.ts'
export type { Action, Conversation, ConversationMessage, ConversationPart, GoldEdit, ModelTurn, ScriptedTask, Usage } from './types.ts'
export type { PolicyOptions } from './policy.ts'
export type { Fault, FaultRule, FaultRuleInput } from './faults.ts'
