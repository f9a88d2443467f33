/**
 * One line of an agent's JSON-lines stream as an object, or null when the
 * line is not a JSON object (CLIs interleave log text with their events; the
 * adapters read events as JSON, never by matching text).
 */
export function parseJsonObjectLine<T extends object = Record<string, unknown>>(line: string): T | null {
  try {
    const value: unknown = JSON.parse(line)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null
  } catch {
    return null
  }
}

/** What a pass over a JSON-lines stream saw besides its events. */
export interface JsonLinesPass {
  /** Non-blank lines that were not a JSON object. */
  readonly unparsedLines: number
  /** The `type` of the last event, or null. */
  readonly lastEventType: string | null
}

/** Calls `onEvent` with each line that is a JSON object event, in order; blank lines are skipped, other lines counted. */
export function eachJsonEvent<E extends { readonly type?: string }>(lines: Iterable<string>, onEvent: (event: E) => void): JsonLinesPass {
  let unparsedLines = 0
  let lastEventType: string | null = null
  for (const line of lines) {
    if (line.trim() === '') continue
    const event = parseJsonObjectLine<E>(line)
    if (event === null) {
      unparsedLines++
      continue
    }
    lastEventType = event.type ?? null
    onEvent(event)
  }
  return { unparsedLines, lastEventType }
}
