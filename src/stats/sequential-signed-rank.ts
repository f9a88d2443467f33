import seedrandom from 'seedrandom'
import { midranks } from './ranks.ts'
import { signedRankCdf } from './signed-rank-cdf.ts'
import { spentAlpha, type SpendingFunction } from './spending.ts'

/**
 * Exact group-sequential boundaries for the one-sided signed-rank test.
 *
 * Under the null hypothesis the signs of the per-task differences are fair
 * coins, independent of each other and of the magnitudes. So given the
 * magnitudes seen so far, every one of the 2ⁿ sign vectors is equally likely,
 * and the statistics of all looks are functions of the one sign vector: Vⱼ is
 * the sum of the midranks, recomputed among the first nⱼ tasks' non-zero |d|,
 * of those with a positive sign (zeros dropped, ties midranked, as in the
 * fixed design). The joint distribution of (V₁, …, V_k) is therefore known
 * exactly, and look k's boundary c_k is the largest value with
 *   P(V₁ > c₁, …, V_{k−1} > c_{k−1}, V_k ≤ c_k) ≤ α(t_k) − (what looks 1…k−1 spent),
 * so the spent error never exceeds what the spending function allows, at
 * every look, for these magnitudes — hence also unconditionally. A look's
 * boundary depends only on the tasks seen by then, so it is the same whether
 * computed at that look or later.
 *
 * The joint probabilities are counted by a dynamic programme over the tasks in
 * order (the same count as enumerating all 2ⁿ sign vectors, which the tests
 * do), whose states are the partial statistics of the looks still open, each
 * earlier look's capped just above its boundary (a partial sum that has passed
 * it can never come back). Where that count would be too large it is
 * estimated by a seeded Monte Carlo over sign vectors, with its error stated.
 */

/**
 * The exact count is used while it needs at most this many state updates: about half a second on a shared 2-core
 * machine. Two looks at ½ and 1 stay exact up to about n = 80 tasks (measured: 22 ms at n = 20, 76 ms at 40, 0.5 s at
 * 60; `npm run bench -- sequential`); beyond, the later looks are sampled.
 */
export const EXACT_MAX_UPDATES = 50_000_000

/** Monte Carlo sign vectors per look by default. */
export const DEFAULT_SAMPLES = 200_000

/** The Monte Carlo error bound is this many standard errors (99.7%). */
export const MONTE_CARLO_SE = 3

/** How the boundaries are computed: `auto` counts exactly where feasible and samples beyond. */
export type BoundaryMethod = 'auto' | 'exact' | 'monte-carlo'

/** What the boundaries are computed for. */
export interface SequentialSignedRankInput {
  /** Per-task differences in the seeded task order, as many as have been seen (at least the looks' task counts to compute). */
  readonly differences: readonly number[]
  /** Tasks at each look, increasing (looks beyond the differences seen are not computed). */
  readonly looks: readonly number[]
  /** The planned information fraction of each look (its tasks over the planned tasks); the last is 1. */
  readonly fractions: readonly number[]
  /** One-sided α. */
  readonly alpha: number
  readonly spending: SpendingFunction
  readonly method?: BoundaryMethod
  /** Monte Carlo sign vectors per look. */
  readonly samples?: number
  /** Monte Carlo seed. */
  readonly seed?: string
  /** Compute the last look's stage-wise adjusted p (default true; a simulation that needs only the decisions turns it off). */
  readonly adjusted?: boolean
}

/** One look of the exact sequential test. */
export interface SignedRankLook {
  /** 1-based. */
  readonly look: number
  /** Tasks seen at this look. */
  readonly tasks: number
  /** Non-zero differences among them (the test's n). */
  readonly n: number
  /** V at this look (the sum of the midranks of the positive d). */
  readonly statistic: number
  /** The look's nominal one-sided p, P(V ≤ v), exact (as the fixed design would report it). */
  readonly p: number
  /** The boundary: the largest V that stops for efficacy (null when no V can at this look). */
  readonly critical: number | null
  /** The boundary's nominal level, P(V ≤ critical); the look crosses when p ≤ this. 0 when no V can. */
  readonly nominalLevel: number
  /** α(t): what the spending function allows by this look. */
  readonly allowed: number
  /** What looks 1…k spend with these boundaries (exact, or the Monte Carlo estimate). */
  readonly spent: number
  /** V is at or below the boundary. */
  readonly crossed: boolean
  readonly method: 'exact' | 'monte carlo'
  /** Monte Carlo: the stated bound on the error of `spent` (MONTE_CARLO_SE standard errors of each sampled look's spend, summed over the looks so far); 0 when exact. */
  readonly error: number
  /**
   * The stage-wise adjusted p if the experiment stops here: what the earlier looks spent + P(no earlier crossing,
   * V ≤ v). Computed for the last look computed (where an analysis stops); null for the others.
   */
  readonly adjustedP: number | null
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

/** Per look: the non-zero tasks' weights (doubled midranks over the look's divisor) in task order, and the observed V in those units. */
interface LookWeights {
  readonly tasks: number
  /** Non-zero tasks among the first `tasks`, by their index in the task order. */
  readonly indices: readonly number[]
  readonly weights: readonly number[]
  readonly divisor: number
  readonly observed: number
  readonly total: number
}

function lookWeights(differences: readonly number[], tasks: number): LookWeights {
  const indices: number[] = []
  for (let i = 0; i < tasks; i++) if (differences[i] !== 0) indices.push(i)
  const doubled = midranks(indices.map((i) => Math.abs(differences[i]!))).map((rank) => rank * 2)
  const divisor = doubled.reduce(gcd, 0) || 1
  const weights = doubled.map((rank) => rank / divisor)
  const observed = weights.reduce((sum, weight, j) => (differences[indices[j]!]! > 0 ? sum + weight : sum), 0)
  return { tasks, indices, weights, divisor, observed, total: weights.reduce((a, b) => a + b, 0) }
}

/** P(V ≤ c) at one look, c in the look's units. */
function marginalCdf(look: LookWeights, c: number): number {
  if (c < 0) return 0
  if (look.weights.length === 0) return 1
  return signedRankCdf(
    look.weights.map((w) => w * look.divisor),
    c * look.divisor,
  )
}

/** State updates the exact count needs for look k with earlier caps and limit L. */
function exactUpdates(looks: readonly LookWeights[], caps: readonly number[], limit: number): number {
  const k = looks.length - 1
  let size = limit + 1
  for (let j = 0; j < k; j++) size *= caps[j]! + 2
  return size * looks[k]!.weights.length
}

/**
 * q[v] = P(V_j > c_j for every earlier look j, V_k = v) for v = 0…limit (units of look k), by counting over the
 * sign vectors of look k's non-zero tasks.
 */
function exactJoint(looks: readonly LookWeights[], caps: readonly number[], limit: number): Float64Array {
  const k = looks.length - 1
  const last = looks[k]!
  // Coordinates: one per look, outermost first; earlier looks stored as min(partial, c_j + 1).
  let dims = [...caps.slice(0, k).map((c) => c + 2), limit + 1]
  let firstLook = 0
  const size = (d: readonly number[]) => d.reduce((a, b) => a * b, 1)
  let state: Float64Array = new Float64Array(size(dims))
  let spare: Float64Array = new Float64Array(0)
  state[0] = 1
  // Position of each non-zero task of look k within each look's weights (look j holds a prefix of look k's tasks).
  const positionIn = looks.map((look) => new Map(look.indices.map((index, position) => [index, position])))
  for (let t = 0; t < last.indices.length; t++) {
    const index = last.indices[t]!
    // Close every earlier look whose tasks are all counted: keep its "above the boundary" slice, drop the coordinate.
    while (firstLook < k && !positionIn[firstLook]!.has(index)) {
      const stride = size(dims.slice(1))
      state = state.slice((dims[0]! - 1) * stride, dims[0]! * stride)
      dims = dims.slice(1)
      firstLook++
    }
    const shifts = dims.map((_, c) => looks[firstLook + c]!.weights[positionIn[firstLook + c]!.get(index)!]!)
    // The last coordinate (look k's partial V) is contiguous: for each combination of the earlier looks' capped
    // partials (few), the positive sign is one shifted add along it.
    const next = spare.length === state.length ? spare.fill(0) : new Float64Array(state.length)
    const open = dims.length
    const width = dims[open - 1]!
    const shift = shifts[open - 1]!
    const outer = state.length / width
    const outerDims = dims.slice(0, open - 1)
    for (let o = 0; o < outer; o++) {
      let target = 0
      let rest = o
      let stride = outer
      for (let c = 0; c < open - 1; c++) {
        stride /= outerDims[c]!
        const value = Math.floor(rest / stride)
        rest -= value * stride
        target += Math.min(value + shifts[c]!, outerDims[c]! - 1) * stride
      }
      const from = o * width
      const to = target * width
      for (let v = 0; v < width; v++) next[from + v]! += state[from + v]! * 0.5
      for (let v = 0; v + shift < width; v++) next[to + v + shift]! += state[from + v]! * 0.5
    }
    spare = state
    state = next
  }
  // Looks with no non-zero task after the last counted one (all their tasks were zeros) close here.
  while (firstLook < k) {
    const stride = size(dims.slice(1))
    state = state.slice((dims[0]! - 1) * stride, dims[0]! * stride)
    dims = dims.slice(1)
    firstLook++
  }
  return state
}

/** The Monte Carlo estimate of the same q, from `samples` seeded sign vectors. */
function sampledJoint(looks: readonly LookWeights[], caps: readonly number[], limit: number, samples: number, seed: string): Float64Array {
  const k = looks.length - 1
  const last = looks[k]!
  // Alea: seedrandom's fast generator, 32 signs per draw.
  const random = seedrandom.alea(seed)
  const q = new Float64Array(limit + 1)
  const positionIn = looks.map((look) => new Map(look.indices.map((index, position) => [index, position])))
  const weightsAt = looks.map((look, j) => last.indices.map((index) => (positionIn[j]!.has(index) ? look.weights[positionIn[j]!.get(index)!]! : 0)))
  const m = last.indices.length
  const sums = new Float64Array(k + 1)
  for (let sample = 0; sample < samples; sample++) {
    sums.fill(0)
    let bits = 0
    for (let t = 0; t < m; t++) {
      if (t % 32 === 0) bits = random.int32()
      if ((bits >>> (t % 32)) & 1) for (let j = 0; j <= k; j++) sums[j]! += weightsAt[j]![t]!
    }
    let alive = true
    for (let j = 0; j < k && alive; j++) if (sums[j]! <= caps[j]!) alive = false
    if (alive && sums[k]! <= limit) q[sums[k]!]! += 1 / samples
  }
  return q
}

/**
 * The boundaries of every look the differences reach, each spending exactly
 * what the spending function allows beyond what the earlier looks spent (or,
 * where counting is infeasible, the Monte Carlo estimate of it with its
 * error), with each look's observed statistic, nominal p, whether it crossed,
 * and the stage-wise adjusted p.
 */
export function sequentialSignedRank(input: SequentialSignedRankInput): SignedRankLook[] {
  const { differences, looks, fractions, alpha, spending } = input
  if (looks.length !== fractions.length) throw new RangeError('sequentialSignedRank: one information fraction per look')
  looks.forEach((tasks, i) => {
    if (!Number.isInteger(tasks) || tasks < 1 || (i > 0 && tasks <= looks[i - 1]!))
      throw new RangeError(`sequentialSignedRank: look sizes must be increasing whole numbers, got ${looks.join(', ')}`)
  })
  differences.forEach((d, i) => {
    if (!Number.isFinite(d)) throw new RangeError(`sequentialSignedRank: difference ${i} is ${d}; every difference must be a finite number`)
  })
  const method = input.method ?? 'auto'
  const samples = input.samples ?? DEFAULT_SAMPLES
  const seed = input.seed ?? 'sequential-signed-rank'
  const weights: LookWeights[] = []
  const caps: number[] = []
  const result: SignedRankLook[] = []
  let spent = 0
  let error = 0
  for (let k = 0; k < looks.length && looks[k]! <= differences.length; k++) {
    const look = lookWeights(differences, looks[k]!)
    weights.push(look)
    // By the fraction, not by position: a caller may pass only the looks taken so far.
    const allowed = spentAlpha(spending, alpha, fractions[k]!)
    const budget = (allowed - spent) * (1 + 1e-12)
    // No boundary can lie above the marginal one at the cumulative level (the earlier looks' events only remove mass).
    // The marginal distribution of V up to half its range (α < ½: every boundary lies below), by one count.
    const half = Math.floor(look.total / 2)
    const marginal = exactJoint([look], [], half)
    const cumulativeMarginal = new Float64Array(half + 1)
    let running = 0
    for (let v = 0; v <= half; v++) cumulativeMarginal[v] = running += marginal[v]!
    let ceiling = -1
    while (ceiling < half && cumulativeMarginal[ceiling + 1]! <= allowed * (1 + 1e-12)) ceiling++
    const observed = look.observed
    const isLast = k === looks.length - 1 || looks[k + 1]! > differences.length
    const count = (limit: number): { q: Float64Array; sampled: boolean } => {
      // The first look's distribution is counted exactly whatever n (one coordinate: the fixed design's count).
      if (k === 0) return { q: exactJoint(weights, caps, limit), sampled: false }
      const sampled = method === 'monte-carlo' || (method === 'auto' && exactUpdates(weights, caps, limit) > EXACT_MAX_UPDATES)
      return { q: sampled ? sampledJoint(weights, caps, limit, samples, `${seed}/look ${k + 1}`) : exactJoint(weights, caps, limit), sampled }
    }
    const { q, sampled } = count(Math.max(ceiling, 0))
    let cumulative = 0
    let critical = -1
    let spentHere = 0
    for (let v = 0; v <= ceiling; v++) {
      cumulative += q[v]!
      if (cumulative <= budget) {
        critical = v
        spentHere = cumulative
      }
    }
    // Report the boundary as the largest V this look can take that stops (units between attainable values stop the same).
    while (critical >= 0 && marginal[critical] === 0) critical--
    const nominalLevel = critical < 0 ? 0 : cumulativeMarginal[critical]!
    let adjustedP: number | null = null
    if (isLast && input.adjusted !== false) {
      const tail = observed <= ceiling ? q : count(observed).q
      let atObserved = 0
      for (let v = 0; v <= observed; v++) atObserved += tail[v]!
      adjustedP = Math.min(1, spent + atObserved)
    }
    error += sampled ? MONTE_CARLO_SE * Math.sqrt((spentHere * (1 - spentHere)) / samples) : 0
    const p = observed <= half ? cumulativeMarginal[observed]! : marginalCdf(look, observed)
    result.push({
      look: k + 1,
      tasks: look.tasks,
      n: look.weights.length,
      statistic: (observed * look.divisor) / 2,
      p,
      critical: critical < 0 ? null : (critical * look.divisor) / 2,
      nominalLevel,
      allowed,
      spent: spent + spentHere,
      crossed: observed <= critical,
      method: sampled ? 'monte carlo' : 'exact',
      error,
      adjustedP,
    })
    spent += spentHere
    caps.push(critical)
  }
  return result
}

/**
 * The exact cumulative error spent by given boundaries (V at or below `critical[k]` stops at look k; null: no V
 * does), by the same count: what Monte Carlo boundaries really spend, to check them against their stated error.
 */
export function exactSpend(differences: readonly number[], looks: readonly number[], critical: readonly (number | null)[]): number[] {
  const weights: LookWeights[] = []
  const caps: number[] = []
  const spent: number[] = []
  let total = 0
  looks.forEach((tasks, k) => {
    const look = lookWeights(differences, tasks)
    weights.push(look)
    const bound = critical[k]
    const cap = bound === null || bound === undefined ? -1 : Math.floor((bound * 2) / look.divisor + 1e-9)
    if (cap >= 0) {
      const q = exactJoint(weights, caps, cap)
      for (let v = 0; v <= cap; v++) total += q[v]!
    }
    spent.push(total)
    caps.push(cap)
  })
  return spent
}
