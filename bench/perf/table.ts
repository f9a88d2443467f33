import type { Bench } from 'tinybench'

/**
 * The table every benchmark prints: rows from a finished tinybench `Bench`,
 * each mean as a ratio of a baseline measured in the same run.
 */

/** One row of a printed benchmark table. */
export interface BenchRow {
  readonly name: string
  /** Mean time per iteration in milliseconds. */
  readonly meanMs: number
  /** Median time per iteration (less moved than the mean by a loaded machine's stalls). */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly samples: number
}

/** The rows of a finished tinybench `Bench`, in the order its tasks were added. */
export function benchRows(bench: Bench): BenchRow[] {
  return bench.tasks.map((task) => {
    const result = task.result
    if (result.state !== 'completed' && result.state !== 'aborted-with-statistics') {
      const error = result.state === 'errored' ? `: ${result.error.message}` : ''
      throw new Error(`benchmark "${task.name}" did not complete (${result.state}${error})`)
    }
    return { name: task.name, meanMs: result.latency.mean, p50Ms: result.latency.p50, p99Ms: result.latency.p99, samples: result.latency.samplesCount }
  })
}

/**
 * Prints rows as an aligned table with each row's mean time as a ratio of the
 * baseline row's (the first row unless named), and, when a target is given,
 * whether each row's mean meets it.
 */
export function printBenchTable(title: string, rows: readonly BenchRow[], options: { baseline?: string; targetMs?: number } = {}): void {
  const baseline = rows.find((row) => row.name === options.baseline) ?? rows[0]
  const header = ['task', 'mean', 'p50', 'p99', 'samples', `× ${baseline?.name ?? 'baseline'}`]
  if (options.targetMs !== undefined) header.push(`< ${options.targetMs} ms`)
  const table = [
    header,
    ...rows.map((row) => {
      const cells = [
        row.name,
        formatMs(row.meanMs),
        formatMs(row.p50Ms),
        formatMs(row.p99Ms),
        String(row.samples),
        baseline === undefined ? '—' : `${(row.meanMs / baseline.meanMs).toFixed(2)}×`,
      ]
      if (options.targetMs !== undefined) cells.push(row.meanMs < options.targetMs ? 'yes' : 'NO')
      return cells
    }),
  ]
  const widths = header.map((_, column) => Math.max(...table.map((row) => row[column]!.length)))
  console.log(`\n${title}`)
  for (const row of table) {
    console.log(`  ${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')}`)
  }
}

function formatMs(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`
}
