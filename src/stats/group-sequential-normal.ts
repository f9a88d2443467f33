import jStat from 'jstat'
import { normalQuantile } from './sample-size.ts'
import { spentAlpha, type SpendingFunction } from './spending.ts'

/**
 * Group-sequential boundaries for a normal statistic (the large-sample limit
 * of any efficient test, the signed-rank statistic included): Z₁ … Z_K at
 * information fractions t₁ < … < t_K = 1, with Zₖ√tₖ a Brownian motion with
 * drift θ (θ = E[Z_K]). Crossing probabilities come from the recursive
 * numerical integration of Armitage, McPherson and Rowe (1969), as in
 * Jennison & Turnbull (2000, ch. 19) and gsDesign: the sub-density of the
 * score Sₖ = Zₖ√tₖ on the continuation region, look by look, by Simpson's
 * rule. The exact signed-rank boundaries (`sequential-signed-rank.ts`) are
 * checked against these at large n, and the repeated interval and the
 * futility rule use them.
 */

/** Grid points per look (odd, for Simpson's rule): boundaries agree with gsDesign's to 1e-4 (the tests). */
const GRID = 241
/** Where a one-sided region is cut: this many standard deviations beyond the mean of the score. */
const TAIL_SD = 9

function cdf(z: number): number {
  return jStat.normal.cdf(z, 0, 1)
}

function pdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI)
}

/** The continuation region of one look on the score scale, with the sub-density on its grid. */
interface Stage {
  readonly points: Float64Array
  readonly weights: Float64Array
  /** Sub-density of Sₖ (never stopped before, inside the region) at each point. */
  readonly density: Float64Array
}

function simpsonGrid(low: number, high: number): { points: Float64Array; weights: Float64Array } {
  const points = new Float64Array(GRID)
  const weights = new Float64Array(GRID)
  const h = (high - low) / (GRID - 1)
  for (let i = 0; i < GRID; i++) {
    points[i] = low + i * h
    weights[i] = ((i === 0 || i === GRID - 1 ? 1 : i % 2 === 1 ? 4 : 2) * h) / 3
  }
  return { points, weights }
}

/** P(previous stage continued and Sₖ ≥ u) (upper) or ≤ u (lower), Sₖ = S_{k−1} + N(θΔ, Δ). */
function tailFrom(previous: Stage | null, u: number, mean: number, sd: number, upper: boolean): number {
  if (previous === null) return upper ? 1 - cdf((u - mean) / sd) : cdf((u - mean) / sd)
  let sum = 0
  for (let i = 0; i < GRID; i++) {
    const z = (u - previous.points[i]! - mean) / sd
    sum += previous.weights[i]! * previous.density[i]! * (upper ? 1 - cdf(z) : cdf(z))
  }
  return sum
}

function nextStage(previous: Stage | null, low: number, high: number, mean: number, sd: number): Stage {
  const { points, weights } = simpsonGrid(low, high)
  const density = new Float64Array(GRID)
  for (let j = 0; j < GRID; j++) {
    if (previous === null) {
      density[j] = pdf((points[j]! - mean) / sd) / sd
      continue
    }
    let sum = 0
    for (let i = 0; i < GRID; i++) sum += previous.weights[i]! * previous.density[i]! * pdf((points[j]! - previous.points[i]! - mean) / sd)
    density[j] = sum / sd
  }
  return { points, weights, density }
}

/** Solves f(x) = target for a decreasing f on [low, high] by bisection. */
function solveDecreasing(f: (x: number) => number, target: number, low: number, high: number): number {
  for (let i = 0; i < 80; i++) {
    const middle = (low + high) / 2
    if (f(middle) > target) low = middle
    else high = middle
  }
  return (low + high) / 2
}

function checkFractions(fractions: readonly number[]): void {
  if (fractions.length === 0) throw new RangeError('group-sequential: at least one look')
  fractions.forEach((t, i) => {
    if (!(t > 0 && t <= 1) || (i > 0 && !(t > fractions[i - 1]!)))
      throw new RangeError(`group-sequential: information fractions must increase within (0, 1], got ${fractions.join(', ')}`)
  })
}

/** Crossing probabilities of given boundaries (Z scale; lower −∞ where absent) under drift θ. */
export interface CrossingProbabilities {
  /** P(stop at look k by crossing the upper boundary). */
  readonly upper: readonly number[]
  /** P(stop at look k by crossing the lower boundary). */
  readonly lower: readonly number[]
}

/**
 * The probability of stopping at each look across each boundary, for upper
 * boundaries bₖ (Zₖ ≥ bₖ stops) and optional lower ones aₖ (Zₖ ≤ aₖ stops; −∞ for none), under drift θ.
 */
export function crossingProbabilities(fractions: readonly number[], upper: readonly number[], lower: readonly number[] | null, theta = 0): CrossingProbabilities {
  checkFractions(fractions)
  const up: number[] = []
  const down: number[] = []
  let stage: Stage | null = null
  let previousT = 0
  for (let k = 0; k < fractions.length; k++) {
    const t = fractions[k]!
    const delta = t - previousT
    const mean = theta * delta
    const sd = Math.sqrt(delta)
    const u = upper[k]! * Math.sqrt(t)
    const lowerZ = lower?.[k] ?? -Infinity
    const centre = theta * t
    const l = Number.isFinite(lowerZ) ? lowerZ * Math.sqrt(t) : Math.min(u, centre) - TAIL_SD * Math.sqrt(t)
    up.push(tailFrom(stage, u, mean, sd, true))
    down.push(Number.isFinite(lowerZ) ? tailFrom(stage, l, mean, sd, false) : 0)
    const high = Number.isFinite(u) ? u : centre + TAIL_SD * Math.sqrt(t)
    if (k < fractions.length - 1) stage = nextStage(stage, l, Math.max(l, high), mean, sd)
    previousT = t
  }
  return { upper: up, lower: down }
}

/** Boundaries of a one-sided design on the Z scale, with what each look spends. */
export interface NormalBoundaries {
  readonly fractions: readonly number[]
  /** Efficacy: stop when Zₖ ≥ upper[k]. */
  readonly upper: readonly number[]
  /** The nominal one-sided level of each efficacy boundary, 1 − Φ(bₖ). */
  readonly nominal: readonly number[]
  /** Cumulative α the spending function allows at each look. */
  readonly cumulativeAlpha: readonly number[]
}

/**
 * Efficacy boundaries from an α-spending function: b₁ = Φ⁻¹(1 − α(t₁)); each
 * later bₖ solves P₀(no crossing before k, Zₖ ≥ bₖ) = α(tₖ) − α(tₖ₋₁). Computed
 * without futility boundaries, so a non-binding futility rule leaves the
 * error rate at or below α.
 */
export function normalBoundaries(fractions: readonly number[], alpha: number, spending: SpendingFunction): NormalBoundaries {
  checkFractions(fractions)
  const cumulative = fractions.map((t) => spentAlpha(spending, alpha, t))
  const upper: number[] = []
  let stage: Stage | null = null
  let previousT = 0
  for (let k = 0; k < fractions.length; k++) {
    const t = fractions[k]!
    const delta = t - previousT
    const sd = Math.sqrt(delta)
    const target = cumulative[k]! - (k === 0 ? 0 : cumulative[k - 1]!)
    const current = stage
    const u = target <= 0 ? 40 * Math.sqrt(t) : solveDecreasing((x) => tailFrom(current, x, 0, sd, true), target, -12, 40)
    upper.push(u / Math.sqrt(t))
    if (k < fractions.length - 1) stage = nextStage(stage, Math.min(u, 0) - TAIL_SD * Math.sqrt(t), u, 0, sd)
    previousT = t
  }
  return { fractions, upper, nominal: upper.map((b) => 1 - cdf(b)), cumulativeAlpha: cumulative }
}

/**
 * Futility boundaries from a β-spending function under drift θ, for given
 * efficacy boundaries: aₖ solves P_θ(continued to k, Zₖ ≤ aₖ) = β(tₖ) − β(tₖ₋₁),
 * at every look but the last (where the efficacy boundary decides), or at the
 * first `looks` of them. A bound is capped at its look's efficacy boundary.
 */
export function futilityBoundaries(efficacy: NormalBoundaries, beta: number, spending: SpendingFunction, theta: number, looks = efficacy.fractions.length - 1): number[] {
  const { fractions, upper } = efficacy
  const lower: number[] = []
  let stage: Stage | null = null
  let previousT = 0
  for (let k = 0; k < Math.min(looks, fractions.length - 1); k++) {
    if (k === 0) {
      // Z₁ ~ N(θ√t₁, 1): the first bound in closed form.
      const t = fractions[0]!
      const spent = spentAlpha(spending, beta, t)
      const first = spent <= 0 ? -Infinity : Math.min(upper[0]!, theta * Math.sqrt(t) + normalQuantile(spent))
      lower.push(first)
      const u = upper[0]! * Math.sqrt(t)
      const l = Number.isFinite(first) ? first * Math.sqrt(t) : Math.min(u, theta * t) - TAIL_SD * Math.sqrt(t)
      if (looks > 1) stage = nextStage(null, l, u, theta * t, Math.sqrt(t))
      previousT = t
      continue
    }
    const t = fractions[k]!
    const delta = t - previousT
    const mean = theta * delta
    const sd = Math.sqrt(delta)
    const target = spentAlpha(spending, beta, t) - (k === 0 ? 0 : spentAlpha(spending, beta, fractions[k - 1]!))
    const current = stage
    const u = upper[k]! * Math.sqrt(t)
    // P(S ≤ x) increases in x: solve on its negation.
    let l = target <= 0 ? -Infinity : solveDecreasing((x) => -tailFrom(current, x, mean, sd, false), -target, -40, 40)
    if (l > u) l = u
    lower.push(l / Math.sqrt(t))
    const low = Number.isFinite(l) ? l : Math.min(u, theta * t) - TAIL_SD * Math.sqrt(t)
    stage = nextStage(stage, low, u, mean, sd)
    previousT = t
  }
  return lower
}

/**
 * The classic constant-shape boundaries (Wang & Tsiatis 1987): bₖ = c · tₖ^(Δ − ½),
 * Δ = ½ Pocock (a constant Z boundary), Δ = 0 O'Brien–Fleming (c/√tₖ), with c
 * such that the design's one-sided error is α. Jennison & Turnbull tabulate c
 * for equally spaced looks (C_P and C_B); the tests compare with them.
 */
export function constantShapeBoundary(fractions: readonly number[], alpha: number, shape: 'pocock' | 'obrien-fleming'): number[] {
  const exponent = shape === 'pocock' ? 0 : -0.5
  const bounds = (c: number) => fractions.map((t) => c * t ** exponent)
  const total = (c: number) => crossingProbabilities(fractions, bounds(c), null).upper.reduce((a, b) => a + b, 0)
  return bounds(solveDecreasing(total, alpha, normalQuantile(1 - alpha) - 1, 8))
}
