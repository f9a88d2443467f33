import type { Sequential } from '../experiment/schema.ts'
import { signedRankTasksForAlpha } from '../stats/signed-rank-floor.ts'
import { simulateDesign, type CandidateDesign, type PilotModel, type SimulatedOperatingCharacteristics, type SimulationRule } from './design-simulation.ts'

/** One candidate design with what the simulation says of it under the null and under the design alternative. */
export interface PlannedDesign {
  readonly design: CandidateDesign
  readonly label: string
  readonly null: SimulatedOperatingCharacteristics
  readonly alternative: SimulatedOperatingCharacteristics
  /** The expected dollars the design costs, averaged over the null and the alternative: what the search minimises. */
  readonly expectedUsd: number
  readonly meetsPower: boolean
}

/** What the planner searches. */
export interface PlanOptions {
  readonly rule: SimulationRule
  /** Simulated experiments per candidate in the search. */
  readonly experiments: number
  readonly seed: string
  /** Seeds per (task, arm) to try. */
  readonly seeds?: readonly number[]
  /** Sequential designs to try besides the fixed one (looks, spending, futility). */
  readonly sequential?: readonly Sequential[]
  /** The most tasks to try. */
  readonly maxTasks?: number
  /**
   * Sequential designs must also reach this power (default: the pre-registered one). The planner passes the
   * recommended fixed design's simulated power less one point, so the sequential design it recommends gives up
   * at most a point of power for its savings.
   */
  readonly sequentialPower?: number
}

/** The sequential designs tried by default: two and three looks, Pocock and O'Brien–Fleming spending, non-binding β-spending futility. */
export const DEFAULT_SEQUENTIAL_CANDIDATES: readonly Sequential[] = [
  { looks: [0.5, 1], spending: 'obrien-fleming', futility: { spending: 'obrien-fleming' }, binding: false },
  { looks: [0.5, 1], spending: 'pocock', futility: { spending: 'obrien-fleming' }, binding: false },
  { looks: [1 / 3, 2 / 3, 1], spending: 'pocock', futility: { spending: 'obrien-fleming' }, binding: false },
]

/** A design in words: `16 tasks × 1 seed, fixed` or `21 tasks × 1 seed, looks at 7, 14, 21 (Pocock…)`. */
export function designLabel(design: CandidateDesign): string {
  const size = `${design.tasks} tasks × ${design.seeds} seed${design.seeds === 1 ? '' : 's'}`
  if (design.sequential === null) return `${size}, fixed`
  const { looks, spending } = design.sequential
  const name = spending === 'obrien-fleming' ? "O'Brien–Fleming" : spending === 'pocock' ? 'Pocock' : `HSD γ=${spending.gamma}`
  return `${size}, ${looks.length} looks (${name}${design.sequential.futility === undefined ? '' : ', futility'})`
}

/** Simulates one candidate under the null and the alternative. */
export function evaluateDesign(model: PilotModel, design: CandidateDesign, options: Pick<PlanOptions, 'rule' | 'experiments' | 'seed' | 'sequentialPower'>): PlannedDesign {
  const seed = `${options.seed}/${designLabel(design)}`
  const nullResult = simulateDesign(model, design, options.rule, 0, options.experiments, `${seed}/null`)
  const alternative = simulateDesign(model, design, options.rule, -options.rule.effect, options.experiments, `${seed}/alternative`)
  return {
    design,
    label: designLabel(design),
    null: nullResult,
    alternative,
    expectedUsd: (nullResult.expectedUsd + alternative.expectedUsd) / 2,
    meetsPower: alternative.supported >= (design.sequential === null ? options.rule.power : Math.max(options.rule.power, options.sequentialPower ?? 0)),
  }
}

/**
 * For each seeds count and each design shape (fixed, and every sequential candidate), the fewest tasks whose
 * simulated power meets the pre-registered power (by bisection on the task count: power grows with it), never
 * fewer than the exact test needs to reach α at all; a sequential shape must also keep the cheapest fixed
 * design's power within one point. Returns every shape's smallest design, cheapest first.
 */
export function planDesigns(model: PilotModel, options: PlanOptions): PlannedDesign[] {
  const floor = signedRankTasksForAlpha(options.rule.alpha)
  const maxTasks = options.maxTasks ?? 60
  const found: PlannedDesign[] = []
  const search = (shapes: readonly (Sequential | null)[], searchOptions: PlanOptions) => {
    for (const seeds of options.seeds ?? [1, 2, 3]) {
      for (const sequential of shapes) {
        const minimum = Math.max(floor, sequential === null ? floor : sequential.looks.length * 2)
        const at = (tasks: number) => evaluateDesign(model, { tasks, seeds, sequential }, searchOptions)
        let high = at(maxTasks)
        if (!high.meetsPower) continue
        let low = minimum - 1
        let highTasks = maxTasks
        while (highTasks - low > 1) {
          const middle = Math.floor((low + highTasks) / 2)
          const result = at(middle)
          if (result.meetsPower) {
            highTasks = middle
            high = result
          } else low = middle
        }
        found.push(high)
      }
    }
  }
  // Fixed designs first: the cheapest of them sets the power the sequential ones must keep (within a point).
  search([null], options)
  const fixed = [...found].sort((a, b) => a.expectedUsd - b.expectedUsd)[0]
  search(options.sequential ?? DEFAULT_SEQUENTIAL_CANDIDATES, {
    ...options,
    sequentialPower: Math.max(options.sequentialPower ?? 0, fixed === undefined ? 0 : fixed.alternative.supported - 0.01),
  })
  return found.sort((a, b) => a.expectedUsd - b.expectedUsd)
}
