import seedrandom from 'seedrandom'
import type { Sequential } from '../experiment/schema.ts'
import { bootstrapMedianInterval } from '../stats/bootstrap.ts'
import { sampleStandardDeviation } from '../stats/descriptive.ts'
import { normalBoundaries } from '../stats/group-sequential-normal.ts'
import { normalQuantile, WILCOXON_EFFICIENCY } from '../stats/sample-size.ts'
import { sequentialSignedRank } from '../stats/sequential-signed-rank.ts'
import { spentAlpha } from '../stats/spending.ts'
import { wilcoxonSignedRank } from '../stats/wilcoxon.ts'
import { futilityBoundaries } from '../stats/group-sequential-normal.ts'
import { relativeChange, roundUsd } from './costs.ts'
import { conditionalPower, resolveDesign } from './sequential.ts'

/**
 * What a pilot says about the experiment to come, as the simulator uses it:
 * each pilot task's control cost per run and solve rate (tasks are drawn from
 * these), the spread of the per-task relative change between tasks (τ) and
 * the spread of one run's cost around its task-and-arm mean (ω, on the log scale).
 */
export interface PilotModel {
  /**
   * Per pilot task: the control arm's mean cost per run (USD), and whether each arm solved it (by a majority of its
   * seeds). A simulated task draws one pilot task and keeps its pair of solved statuses, so the solve outcomes of
   * the two arms are as correlated as the pilot's were (a pilot with no discordant task gives none).
   */
  readonly tasks: readonly { readonly costUsd: number; readonly controlSolved: boolean; readonly treatmentSolved: boolean }[]
  /** Between-task standard deviation of the true relative change. */
  readonly tau: number
  /** Within-(task, arm) standard deviation of log cost between seeds. */
  readonly omega: number
}

/** A candidate design: tasks, seeds per (task, arm), and the sequential design (null: fixed). */
export interface CandidateDesign {
  readonly tasks: number
  readonly seeds: number
  readonly sequential: Sequential | null
}

/** The decision rule's parameters the simulation applies. */
export interface SimulationRule {
  readonly alpha: number
  readonly margin: number
  /** Bootstrap resamples per interval in the simulation (the analysis uses the spec's; fewer here, for time). */
  readonly resamples: number
  readonly effect: number
  /** The pre-registered power (β-spending futility spends 1 − power unless it names β). */
  readonly power: number
}

/** What many simulated experiments of one design did under one true effect. */
export interface SimulatedOperatingCharacteristics {
  readonly experiments: number
  /** The share whose verdict was "supported" (type I error under the null, power under the alternative). */
  readonly supported: number
  /** Its Monte Carlo standard error. */
  readonly standardError: number
  readonly expectedRuns: number
  readonly maximumRuns: number
  readonly expectedUsd: number
  readonly maximumUsd: number
  /** The share stopped at each look (fixed designs: one look). */
  readonly stoppedAt: readonly number[]
}

function normal(random: () => number): number {
  // Box–Muller.
  let u = 0
  while (u === 0) u = random()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
}

/** One simulated experiment's tasks: d, r and solved per arm, in task order, and each task's runs' cost. */
function simulateTasks(model: PilotModel, design: CandidateDesign, trueChange: number, random: () => number) {
  const tasks = []
  for (let i = 0; i < design.tasks; i++) {
    const pilot = model.tasks[Math.floor(random() * model.tasks.length)]!
    const change = Math.max(-0.95, trueChange + model.tau * normal(random))
    const arm = (mean: number) => {
      let cost = 0
      for (let s = 0; s < design.seeds; s++) cost += mean * Math.exp(model.omega * normal(random) - (model.omega * model.omega) / 2)
      return { mean: cost / design.seeds, total: cost }
    }
    const control = arm(pilot.costUsd)
    const treatment = arm(pilot.costUsd * (1 + change))
    const d = roundUsd(treatment.mean - control.mean)
    tasks.push({ d, r: relativeChange(d, control.mean), controlSolved: pilot.controlSolved, treatmentSolved: pilot.treatmentSolved, usd: control.total + treatment.total })
  }
  return tasks
}

type SimulatedTask = ReturnType<typeof simulateTasks>[number]

function intervalUpper(tasks: readonly SimulatedTask[], tail: number, rule: SimulationRule, seed: string): number {
  return bootstrapMedianInterval(
    tasks.map((task) => task.r),
    { resamples: rule.resamples, seed, probabilities: [tail, 1 - tail] },
  ).upper
}

function solvedMet(tasks: readonly SimulatedTask[], margin: number): boolean {
  const treatment = tasks.filter((task) => task.treatmentSolved).length
  const control = tasks.filter((task) => task.controlSolved).length
  return treatment >= control - margin
}

/**
 * Simulates `experiments` experiments of a design under a true median relative change (0: the null; −δ: the
 * design alternative), each decided by the pre-registered rule exactly as the analysis decides it (exact
 * signed-rank test or exact sequential boundaries, the interval criterion by a seeded bootstrap with
 * `rule.resamples` resamples, the solve-rate margin), and counts what it paid for. Seeded: the same arguments
 * give the same numbers.
 */
export function simulateDesign(
  model: PilotModel,
  design: CandidateDesign,
  rule: SimulationRule,
  trueChange: number,
  experiments: number,
  seed: string,
): SimulatedOperatingCharacteristics {
  const random = seedrandom.alea(seed)
  const runsPerTask = 2 * design.seeds
  const resolved = design.sequential === null ? null : resolveDesign(design.sequential, design.tasks)
  const looks = resolved?.looks ?? [design.tasks]
  const fractions = resolved?.fractions ?? [1]
  const spending = design.sequential?.spending ?? 'obrien-fleming'
  const tails = resolved === null ? [0.025] : normalBoundaries(fractions, 0.025, spending).nominal
  const efficacyNormal = normalBoundaries(fractions, rule.alpha, spending)
  const finalBoundary = efficacyNormal.upper.at(-1)!
  const futility = design.sequential?.futility
  let supported = 0
  let runs = 0
  let usd = 0
  let maximumUsd = 0
  const stoppedAt = looks.map(() => 0)
  for (let e = 0; e < experiments; e++) {
    const tasks = simulateTasks(model, design, trueChange, random)
    const differences = tasks.map((task) => task.d)
    let stop = looks.length - 1
    let verdict = false
    for (let k = 0; k < looks.length; k++) {
      const seen = tasks.slice(0, looks[k]!)
      const last = k === looks.length - 1
      // Fast path: a look whose nominal p is above α(t) cannot cross (the boundary's nominal level is at most α(t)).
      const p = wilcoxonSignedRank(differences.slice(0, looks[k]!)).p
      const crossed =
        p <= spentAlpha(spending, rule.alpha, fractions[k]!) &&
        (resolved === null
          ? p < rule.alpha
          : sequentialSignedRank({
              differences: differences.slice(0, looks[k]!),
              looks: looks.slice(0, k + 1),
              fractions: fractions.slice(0, k + 1),
              alpha: rule.alpha,
              spending,
              adjusted: false,
            })[k]!.crossed)
      const efficacy = crossed && solvedMet(seen, rule.margin) && intervalUpper(seen, tails[k]!, rule, `${seed}/${e}/${k}`) < 0
      if (efficacy) {
        verdict = true
        stop = k
        break
      }
      if (last) break
      if (futility !== undefined) {
        // As the analysis judges futility (sequential.ts): the design effect on the Z scale with σ from the tasks seen.
        const sigma = sampleStandardDeviation(seen.map((task) => task.r).filter(Number.isFinite))
        if (sigma !== null && sigma > 0) {
          const theta = (rule.effect / sigma) * Math.sqrt(WILCOXON_EFFICIENCY * design.tasks)
          const z = normalQuantile(Math.min(1 - 1e-12, Math.max(1e-12, 1 - p)))
          const futile =
            'conditionalPower' in futility
              ? conditionalPower(z, fractions[k]!, theta, finalBoundary) < futility.conditionalPower
              : z < futilityBoundaries(efficacyNormal, futility.beta ?? 1 - rule.power, futility.spending, theta, k + 1)[k]!
          if (futile) {
            stop = k
            break
          }
        }
      }
    }
    if (verdict) supported++
    stoppedAt[stop]!++
    runs += looks[stop]! * runsPerTask
    let paid = 0
    for (let i = 0; i < looks[stop]!; i++) paid += tasks[i]!.usd
    usd += paid
    let all = 0
    for (const task of tasks) all += task.usd
    maximumUsd += all
  }
  const share = supported / experiments
  return {
    experiments,
    supported: share,
    standardError: Math.sqrt((share * (1 - share)) / experiments),
    expectedRuns: runs / experiments,
    maximumRuns: design.tasks * runsPerTask,
    expectedUsd: usd / experiments,
    maximumUsd: maximumUsd / experiments,
    stoppedAt: stoppedAt.map((count) => count / experiments),
  }
}

/**
 * The pilot model from a pilot's runs: each task's control mean cost and both arms' majority-solved status; ω, the pooled standard deviation of log cost between seeds within a (task, arm); τ, the
 * between-task spread of the true relative change, from σ (the per-task relative change's standard deviation
 * at the pilot's k seeds) less what seed noise adds to it: τ² = max(0, σ² − 2ω²/k).
 */
export function pilotModel(
  runs: readonly { readonly task: string; readonly arm: string; readonly costUsd: number; readonly solved: boolean }[],
  control: string,
  treatment: string,
): PilotModel & { readonly sigma: number; readonly seeds: number } {
  const byTaskArm = new Map<string, { costs: number[]; solved: number }>()
  for (const run of runs) {
    if (run.arm !== control && run.arm !== treatment) continue
    const key = `${run.task}\u0000${run.arm}`
    const entry = byTaskArm.get(key) ?? { costs: [], solved: 0 }
    entry.costs.push(run.costUsd)
    if (run.solved) entry.solved++
    byTaskArm.set(key, entry)
  }
  const taskIds = [...new Set(runs.map((run) => run.task))].sort()
  const tasks: { costUsd: number; controlSolved: boolean; treatmentSolved: boolean }[] = []
  const changes: number[] = []
  let squares = 0
  let freedom = 0
  let seeds = 0
  for (const task of taskIds) {
    const c = byTaskArm.get(`${task}\u0000${control}`)
    const t = byTaskArm.get(`${task}\u0000${treatment}`)
    if (c === undefined || t === undefined) continue
    const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length
    const controlMean = mean(c.costs)
    tasks.push({ costUsd: controlMean, controlSolved: c.solved * 2 > c.costs.length, treatmentSolved: t.solved * 2 > t.costs.length })
    if (controlMean > 0) changes.push((mean(t.costs) - controlMean) / controlMean)
    seeds = Math.max(seeds, c.costs.length)
    for (const costs of [c.costs, t.costs]) {
      const logs = costs.filter((cost) => cost > 0).map(Math.log)
      if (logs.length < 2) continue
      const centre = mean(logs)
      for (const value of logs) squares += (value - centre) ** 2
      freedom += logs.length - 1
    }
  }
  if (tasks.length < 2) throw new RangeError('pilotModel: the pilot needs at least two tasks with runs of both arms')
  const sigma = sampleStandardDeviation(changes) ?? 0
  const omega = freedom === 0 ? 0 : Math.sqrt(squares / freedom)
  const tau = Math.sqrt(Math.max(0, sigma * sigma - (2 * omega * omega) / Math.max(1, seeds)))
  return { tasks, tau, omega, sigma, seeds }
}
