import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { evaluateDesign, planDesigns, type PlannedDesign } from '../../src/analysis/design-plan.ts'
import { pilotModel } from '../../src/analysis/design-simulation.ts'
import { sequentialSignedRank } from '../../src/stats/sequential-signed-rank.ts'

/**
 * Power per dollar (issue 24). From the embedded demo's pilot (σ = 0.1581; its runs are in
 * fixtures/demo-pilot.json), at the pre-registration's parameters (α 0.05 one-sided, power 0.8 at a 15% median
 * reduction, margin 1), the planner searches fixed and sequential designs (tasks × seeds × looks) with 500
 * simulated experiments per candidate, recommends the cheapest fixed design that meets the power and the
 * cheapest sequential design that also keeps the fixed one's power within a point, and simulates each again with 10,000 seeded experiments per row under the null and under the
 * design alternative. Every simulated experiment is decided by the rule the analysis applies (exact test or
 * exact sequential boundaries, the interval criterion, the solve-rate margin). Also the time the exact
 * boundaries take at a few n (the "where feasible" of docs/analysis.md).
 */

const here = path.dirname(fileURLToPath(import.meta.url))
const ROWS = 10_000
const SEARCH = 500
const RULE = { alpha: 0.05, margin: 1, resamples: 400, effect: 0.15, power: 0.8 }

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`
}

function row(name: string, result: PlannedDesign): string[] {
  return [
    `${name}: ${result.label}`,
    `  type I error ${result.null.supported.toFixed(4)} (±${(2 * result.null.standardError).toFixed(4)}, 2 SE)   power ${result.alternative.supported.toFixed(4)} (±${(2 * result.alternative.standardError).toFixed(4)})`,
    `  paid runs: expected ${result.null.expectedRuns.toFixed(1)} under the null, ${result.alternative.expectedRuns.toFixed(1)} under the alternative, at most ${result.null.maximumRuns}`,
    `  dollars:   expected $${result.null.expectedUsd.toFixed(2)} under the null, $${result.alternative.expectedUsd.toFixed(2)} under the alternative, at most $${result.null.maximumUsd.toFixed(2)}`,
    `  stopped at each look: null ${result.null.stoppedAt.map(percent).join(' / ')}; alternative ${result.alternative.stoppedAt.map(percent).join(' / ')}`,
  ]
}

function boundaryTimes(): void {
  console.log('exact boundaries, two looks at ½ and 1 (continuous data), time per computation:')
  for (const n of [20, 40, 60, 80]) {
    const differences = Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898) - 0.2)
    const started = performance.now()
    const looks = sequentialSignedRank({ differences, looks: [n / 2, n], fractions: [0.5, 1], alpha: 0.05, spending: 'obrien-fleming', adjusted: false })
    console.log(`  n = ${n}: ${(performance.now() - started).toFixed(0)} ms (${looks.map((look) => look.method).join(', ')})`)
  }
}

export default async function run(): Promise<void> {
  const pilot = JSON.parse(readFileSync(path.join(here, 'fixtures', 'demo-pilot.json'), 'utf8')) as {
    source: string
    control: string
    treatment: string
    runs: { task: string; arm: string; seed: number; costUsd: number; solved: boolean }[]
  }
  const model = pilotModel(pilot.runs, pilot.control, pilot.treatment)
  console.log(`pilot: ${pilot.source}`)
  console.log(
    `  σ = ${model.sigma.toFixed(4)} (per-task relative change, ${model.seeds} seeds), τ = ${model.tau.toFixed(4)} between tasks, ω = ${model.omega.toFixed(4)} within (log cost between seeds)`,
  )
  boundaryTimes()
  const started = performance.now()
  const searched = planDesigns(model, { rule: RULE, experiments: SEARCH, seed: 'bench-sequential', seeds: [1, 3], maxTasks: 40 })
  console.log(
    `search (${SEARCH.toLocaleString('en')} simulated experiments per candidate, ${((performance.now() - started) / 1000).toFixed(0)} s): the smallest design of each shape that meets power ${RULE.power}, cheapest first`,
  )
  for (const result of searched) console.log(`  ${result.label}: power ${result.alternative.supported.toFixed(3)}, expected $${result.expectedUsd.toFixed(2)}`)
  const fixedChoice = searched.find((result) => result.design.sequential === null)
  const sequentialChoice = searched.find((result) => result.design.sequential !== null)
  if (fixedChoice === undefined || sequentialChoice === undefined) throw new Error('no fixed or no sequential design met the power within 40 tasks')
  const fixed = evaluateDesign(model, fixedChoice.design, { rule: RULE, experiments: ROWS, seed: 'bench-sequential/rows' })
  const sequential = evaluateDesign(model, sequentialChoice.design, { rule: RULE, experiments: ROWS, seed: 'bench-sequential/rows' })
  console.log(`\n${ROWS.toLocaleString('en')} simulated experiments per row (seeded):`)
  for (const line of [...row('fixed', fixed), ...row('sequential (recommended)', sequential)]) console.log(line)
  const lessAlternative = 1 - sequential.alternative.expectedRuns / fixed.alternative.expectedRuns
  const lessNull = 1 - sequential.null.expectedRuns / fixed.null.expectedRuns
  console.log(
    `sequential: expected paid runs -${(lessAlternative * 100).toFixed(0)}% under the alternative, -${(lessNull * 100).toFixed(0)}% under the null; ` +
      `type I error ${sequential.null.supported.toFixed(4)}; power ${sequential.alternative.supported.toFixed(4)} (fixed: ${fixed.alternative.supported.toFixed(4)})`,
  )
}
