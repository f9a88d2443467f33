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

/**
 * How far the host disk's free space may dip while a run writes its gigabyte: a write that escaped the run's disk
 * limit would take about 1 GiB of it, while other test files on this disk (two at once, npm installs, clones) take
 * tens of MB at a time. A run's own 64 MB limit fits well under it too.
 */
export const ESCAPE_FLOOR = 512 * 1024 * 1024

/** The assertion message when `before - lowest` reached `ESCAPE_FLOOR`. */
export const ESCAPED = "the host disk lost more than 512 MB while the run wrote 1 GB: a write escaped the run's disk limit"
