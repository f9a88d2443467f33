import { statfsSync } from 'node:fs'

/** The free bytes of `dir`'s file system. */
function freeBytes(dir: string): number {
  const info = statfsSync(dir)
  return info.bavail * info.bsize
}

/**
 * The least free space `dir`'s file system had while `work` ran (sampled every 20 ms), and its free space before:
 * a run that wrote to the host's disk, even for a moment before cleaning up, shows in `before - lowest`.
 */
export async function lowestFree<T>(dir: string, work: () => Promise<T>): Promise<{ result: T; before: number; lowest: number }> {
  const before = freeBytes(dir)
  let lowest = before
  const timer = setInterval(() => {
    lowest = Math.min(lowest, freeBytes(dir))
  }, 20)
  try {
    const result = await work()
    return { result, before, lowest: Math.min(lowest, freeBytes(dir)) }
  } finally {
    clearInterval(timer)
  }
}
