/**
 * Waits until `condition` holds, polling every 50 ms, and fails naming `what`
 * once `timeoutMs` passes: the suite's one way to wait for something (a
 * process to start or end, a file to appear), never a fixed sleep, so a
 * loaded machine only makes a test slower, never red.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
