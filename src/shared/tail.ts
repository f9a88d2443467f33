/**
 * The end of a process's output for a one-line message: trimmed, and cut to
 * its last `chars` characters (marked with `…`) when longer. The end, because
 * that is where a failing program says why.
 */
export function tail(text: string, chars = 600): string {
  const trimmed = text.trim()
  return trimmed.length <= chars ? trimmed : `…${trimmed.slice(-chars)}`
}
