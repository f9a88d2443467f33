import { anthropicMessages } from './anthropic.ts'
import { cursorAgentBackend } from './cursor.ts'
import { geminiApi } from './gemini.ts'
import { openaiResponses } from './openai-responses.ts'
import type { ProtocolHandler } from './server.ts'

/**
 * Every protocol the scripted model server speaks by default. Routes never
 * overlap, so one server can serve every CLI. To add a protocol, write a
 * `ProtocolHandler` in its own file and append it here (see README.md).
 */
export const protocolHandlers: readonly ProtocolHandler[] = [anthropicMessages, openaiResponses, geminiApi, cursorAgentBackend]
