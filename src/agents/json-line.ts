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
