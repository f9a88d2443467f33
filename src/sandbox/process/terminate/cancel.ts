/**
 * The caller's abort signal for one process: `onCancel` runs once when it is
 * aborted (at once when it already is). Returns the function that stops
 * listening (the process ended first).
 */
export function onCancel(signal: AbortSignal | undefined, cancel: () => void): () => void {
  if (signal === undefined) return () => {}
  if (signal.aborted) {
    cancel()
    return () => {}
  }
  signal.addEventListener('abort', cancel) // a signal aborts once: the listener runs once
  return () => signal.removeEventListener('abort', cancel)
}
