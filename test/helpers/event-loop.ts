/**
 * How many turns of the event loop `work` spans, counted by a `setImmediate` chain that runs once a turn: what the
 * tests of code that yields every so many entries (stat seals, task guards) pin exactly.
 */
export async function eventLoopTurns(work: () => Promise<unknown>): Promise<number> {
  let count = 0
  let stop = false
  const tick = () => {
    if (stop) return
    count++
    setImmediate(tick)
  }
  setImmediate(tick)
  await work()
  stop = true
  return count
}
