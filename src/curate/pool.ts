/**
 * Runs `work` over `items` with at most `limit` at a time and returns the
 * results in the items' order. `onSettled` is called as each one finishes
 * (for a progress display). The first error stops new work from starting and
 * is rethrown once the running ones have finished.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  onSettled?: (result: R, index: number, done: number) => void,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let done = 0
  let failure: { error: unknown } | undefined
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++
      try {
        results[index] = await work(items[index]!, index)
        done++
        onSettled?.(results[index]!, index, done)
      } catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  if (failure !== undefined) throw failure.error
  return results
}
