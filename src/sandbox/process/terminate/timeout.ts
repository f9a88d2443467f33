/**
 * The wall-clock limit of one process: `onTimeout` runs once `timeoutMs`
 * has passed. Returns the function that disarms it (the process ended first).
 * Without a limit nothing is armed.
 */
export function armTimeout(timeoutMs: number | undefined, onTimeout: () => void): () => void {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs)) return () => {}
  const timer = setTimeout(onTimeout, Math.max(0, timeoutMs))
  return () => clearTimeout(timer)
}
