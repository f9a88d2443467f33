import type { z } from 'zod'
import { schemaProblems, SpecError } from '../errors.ts'
import type { AgentSpec } from '../experiment/schema.ts'

/**
 * Parses an adapter's `agent.options` with its zod schema, or throws a
 * `SpecError` naming each field at fault (`agent.options.baseUrl: …`), before
 * any run starts.
 */
export function parseAdapterOptions<T extends z.ZodType>(kind: string, schema: T, spec: AgentSpec): z.infer<T> {
  const parsed = schema.safeParse(spec.options ?? {})
  if (parsed.success) return parsed.data
  const problems = schemaProblems(parsed.error.issues, 'agent.options').map((problem) => `${problem.field}: ${problem.message}`)
  throw new SpecError(`the ${kind} agent's options are invalid:\n  ${problems.join('\n  ')}`)
}
