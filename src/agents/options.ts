import type { z } from 'zod'
import { SpecError } from '../errors.ts'
import type { AgentSpec } from '../experiment/schema.ts'

/**
 * Parses an adapter's `agent.options` with its zod schema, or throws a
 * `SpecError` naming each field at fault (`agent.options.baseUrl: …`), before
 * any run starts.
 */
export function parseAdapterOptions<T extends z.ZodType>(kind: string, schema: T, spec: AgentSpec): z.infer<T> {
  const parsed = schema.safeParse(spec.options ?? {})
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map(
    (issue) => `agent.options${issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')}: ${issue.message}`,
  )
  throw new SpecError(`the ${kind} agent's options are invalid:\n  ${problems.join('\n  ')}`)
}
