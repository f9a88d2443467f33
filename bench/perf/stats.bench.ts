import stdlibWilcoxon from '@stdlib/stats-wilcoxon'
import seedrandom from 'seedrandom'
import { Bench } from 'tinybench'
import { bootstrapMedianInterval } from '../../src/stats/bootstrap.ts'
import { median, quantile } from '../../src/stats/quantile.ts'
import { wilcoxonSignedRank } from '../../src/stats/wilcoxon.ts'
import { benchRows, printBenchTable } from './table.ts'

/**
 * The statistics at the size of a large experiment: 1,000 tasks. Targets
 * (DESIGN, issue 3): exact Wilcoxon on 1,000 tasks with ties and a 10,000 ×
 * 1,000 bootstrap each under 1 s. Baselines in the same run: @stdlib/stats-wilcoxon
 * (a published implementation: with ties it falls back to a normal
 * approximation; without ties and with `exact: true` it is exact too) and the
 * textbook bootstrap that sorts every resample.
 */

const TASKS = 1_000

/** Per-task cost differences in cents: heavy ties and some zeros, as real costs rounded to the cent give. */
function tiedDifferences(random: () => number): number[] {
  return Array.from({ length: TASKS }, () => Math.round((random() - 0.55) * 60) / 100)
}

/** Continuous differences: no ties, no zeros (where stdlib's exact test applies). */
function distinctDifferences(random: () => number): number[] {
  return Array.from({ length: TASKS }, () => random() - 0.55)
}

function naiveBootstrap(values: readonly number[], resamples: number): [number, number] {
  const random = seedrandom('20261014')
  const medians: number[] = []
  for (let b = 0; b < resamples; b++) {
    medians.push(median(Array.from({ length: values.length }, () => values[Math.floor(random.quick() * values.length)]!)))
  }
  return [quantile(medians, 0.025), quantile(medians, 0.975)]
}

function distinctOfSize(random: () => number, n: number): number[] {
  return Array.from({ length: n }, () => random() - 0.55)
}

export default async function run(): Promise<void> {
  const random = seedrandom('bench-stats')
  const tied = tiedDifferences(random)
  const distinct = distinctDifferences(random)
  const ours = wilcoxonSignedRank(tied)
  const stdlibTied = stdlibWilcoxon(tied, { alternative: 'less' })
  const oursDistinct = wilcoxonSignedRank(distinct)
  const stdlibDistinct = stdlibWilcoxon(distinct, { alternative: 'less' })
  console.log(
    `data: ${TASKS} tasks; tied: ${ours.n} non-zero, ${ours.zeros} zeros, ${new Set(tied.map(Math.abs)).size} distinct |d|\n` +
      `  with ties  V = ${ours.statistic}  ours exact p = ${ours.p.toExponential(6)}  stdlib p = ${stdlibTied.pValue.toExponential(6)} (normal approximation)\n` +
      `  no ties    V = ${oursDistinct.statistic}  ours exact p = ${oursDistinct.p.toExponential(6)}  stdlib p = ${stdlibDistinct.pValue.toExponential(6)} (normal approximation)`,
  )

  const large = new Bench({ time: 2000, iterations: 5, warmupIterations: 1 })
  large
    .add('stdlib, ties (normal approx.)', () => void stdlibWilcoxon(tied, { alternative: 'less' }))
    .add('ours exact, ties', () => void wilcoxonSignedRank(tied))
    .add('stdlib, no ties (normal approx.)', () => void stdlibWilcoxon(distinct, { alternative: 'less' }))
    .add('ours exact, no ties', () => void wilcoxonSignedRank(distinct))
  await large.run()
  printBenchTable(`Wilcoxon signed-rank, one-sided, ${TASKS} tasks`, benchRows(large), { targetMs: 1000 })

  // Where stdlib is exact too (no ties, no zeros): its own default range (n ≤ 50) and, forced, n = 200.
  // Not at 1,000: its memoised recursion over (x, n) grows about as n³ in time and memory.
  const exact = new Bench({ time: 1500, iterations: 3, warmupIterations: 1 })
  for (const n of [50, 200]) {
    const data = distinctOfSize(random, n)
    let started = performance.now()
    const b = stdlibWilcoxon(data, { alternative: 'less', exact: true }).pValue
    const stdlibFirst = performance.now() - started
    started = performance.now()
    const a = wilcoxonSignedRank(data).p
    const oursFirst = performance.now() - started
    console.log(
      `  n = ${n}, no ties: ours p = ${a}  stdlib exact p = ${b}  |difference| = ${Math.abs(a - b).toExponential(2)}; ` +
        `first call: stdlib ${stdlibFirst.toFixed(1)} ms, ours ${oursFirst.toFixed(1)} ms`,
    )
    exact.add(`stdlib exact, n = ${n}`, () => void stdlibWilcoxon(data, { alternative: 'less', exact: true })).add(`ours exact, n = ${n}`, () => void wilcoxonSignedRank(data))
  }
  await exact.run()
  printBenchTable('Exact Wilcoxon side by side with @stdlib/stats-wilcoxon (no ties, where stdlib is exact)', benchRows(exact))
  console.log('  (stdlib memoises its exact distribution for the process, so after its first call it repeats cache lookups: compare the first calls above)')

  const relative = distinct.map((d) => d / 0.8)
  const bootstrap = new Bench({ time: 2000, iterations: 3, warmupIterations: 1 })
  bootstrap
    .add('sort every resample (textbook)', () => void naiveBootstrap(relative, 10_000))
    .add('ours (count draws per sorted position)', () => void bootstrapMedianInterval(relative))
  await bootstrap.run()
  printBenchTable(`Percentile bootstrap of the median, 10,000 resamples × ${TASKS} tasks`, benchRows(bootstrap), { targetMs: 1000 })
}
