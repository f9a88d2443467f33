import type { AgentRunResult } from '../agents/types.ts'

/**
 * The manipulation check's record: the CLI's own count of its hooks
 * (`hook_response` lines in its stream) beside the harness's count of hook
 * starts (`HookChannel`), which the session's printing cannot add to. Pure.
 */

/** Claude Code prints no `hook_response` for SessionEnd (the session's stream has closed): the harness alone counts it. */
const UNREPORTED_EVENTS = new Set(['SessionEnd'])

/** The record's `manipulation` (null for an arm without hooks) and the integrity flag of a disagreement (none when they agree). */
export interface ManipulationRecord {
  readonly manipulation: {
    readonly hookPromptsRecorded: number
    readonly hookEditsRecorded: number
    readonly hooksReported?: Record<string, number>
    readonly hookStarts?: Record<string, number>
  } | null
  readonly flags: readonly string[]
}

/** The flag a disagreement carries in `integrityFlags` (the report lists it). */
export const HOOK_COUNT_FLAG = 'hook-count-disagrees'

/** Events in which the two counts differ, as `event: CLI n, harness m`, sorted. */
function disagreements(reported: Readonly<Record<string, number>>, started: Readonly<Record<string, number>>): string[] {
  const events = [...new Set([...Object.keys(reported), ...Object.keys(started)])].filter((event) => !UNREPORTED_EVENTS.has(event)).sort()
  return events
    .filter((event) => (reported[event] ?? 0) !== (started[event] ?? 0))
    .map((event) => `${event}: the CLI printed ${reported[event] ?? 0}, the harness counted ${started[event] ?? 0}`)
}

/**
 * What the record says of the session's hooks. A session the harness's
 * timeout killed may have started hooks it never reported: no flag then.
 */
export function manipulationRecord(armHooks: readonly string[], agent: AgentRunResult): ManipulationRecord {
  const fired = agent.hooksFired
  const starts = agent.hookStarts ?? null
  const flags: string[] = []
  if (starts !== null && agent.stop !== 'timeout') {
    const differ = disagreements(fired ?? {}, starts.byEvent)
    if (differ.length > 0)
      flags.push(
        `${HOOK_COUNT_FLAG}: ${differ.join('; ')} (the starts on the harness's hook channel and the CLI's hook_response lines must agree: something in the session wrote one of them)`,
      )
    if (starts.foreign.length > 0)
      flags.push(
        `${HOOK_COUNT_FLAG}: ${starts.foreign.length} line(s) on the harness's hook channel were no start of a wrapped hook (something else wrote them): ${JSON.stringify(starts.foreign[0])}`,
      )
  }
  if (armHooks.length === 0) return { manipulation: null, flags }
  return {
    manipulation: {
      hookPromptsRecorded: fired?.UserPromptSubmit ?? 0,
      hookEditsRecorded: fired?.PostToolUse ?? 0,
      ...(fired === null ? {} : { hooksReported: { ...fired } }),
      ...(starts === null ? {} : { hookStarts: { ...starts.byEvent } }),
    },
    flags,
  }
}
