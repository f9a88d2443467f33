/** The decision rule's answer. */
export type Verdict = 'supported' | 'not supported' | 'no verdict'

/** Each of the three criteria, with the numbers it was judged on. */
export interface DecisionCriteria {
  /** 1. The primary (Wilcoxon) p, Holm-adjusted when several arms are compared, is below α. */
  readonly wilcoxon: { readonly p: number; readonly alpha: number; readonly met: boolean }
  /** 2. The upper bound of the 95% interval on the median relative change is below zero. */
  readonly interval: { readonly upper: number; readonly met: boolean }
  /** 3. The treatment solves at least as many tasks as the control, minus the margin. */
  readonly solved: { readonly treatment: number; readonly control: number; readonly margin: number; readonly met: boolean }
}

/** A verdict and the criteria behind it (null criteria: no verdict, or a summary over several arms). */
export interface Decision {
  readonly verdict: Verdict
  readonly supported: boolean
  readonly criteria: DecisionCriteria | null
}

/** What the rule is applied to. */
export interface DecisionInput {
  readonly p: number
  readonly alpha: number
  readonly intervalUpper: number
  readonly solvedTreatment: number
  readonly solvedControl: number
  readonly margin: number
}

/**
 * The pre-registered rule, applied mechanically: supported iff p < α and the
 * interval's upper bound < 0 and solved(treatment) ≥ solved(control) − margin.
 */
export function decide(input: DecisionInput): Decision {
  const criteria: DecisionCriteria = {
    wilcoxon: { p: input.p, alpha: input.alpha, met: input.p < input.alpha },
    interval: { upper: input.intervalUpper, met: input.intervalUpper < 0 },
    solved: {
      treatment: input.solvedTreatment,
      control: input.solvedControl,
      margin: input.margin,
      met: input.solvedTreatment >= input.solvedControl - input.margin,
    },
  }
  const supported = criteria.wilcoxon.met && criteria.interval.met && criteria.solved.met
  return { verdict: supported ? 'supported' : 'not supported', supported, criteria }
}

/** No verdict: the data are incomplete. */
export const NO_VERDICT: Decision = { verdict: 'no verdict', supported: false, criteria: null }
