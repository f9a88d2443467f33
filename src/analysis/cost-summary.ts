import type { RecordedRun } from '../runs/record.ts'

/**
 * The two costs of a run side by side: the agent's own report (`costUsd`)
 * and the harness's metered count (`metered.costUsd`, from the provider's
 * usage fields through the run's gateway). Which one is the endpoint is
 * pre-registered (`decision.cost`); every run where they differ is listed
 * as `cost-disagrees`, so a forged or under-reported cost is seen, whichever
 * was analysed.
 */

/** Which cost the analysis uses: the metered one where the run was metered (the default), or the agent's own. */
export type CostEndpoint = 'metered' | 'agent'

/** One run whose two costs differ by more than the tolerance. */
export interface CostDisagreement {
  readonly task: string
  readonly arm: string
  readonly seed: number
  readonly agentUsd: number
  readonly meteredUsd: number
}

/** The cost part of a report. */
export interface CostSummary {
  /** The endpoint the analysis used. */
  readonly endpoint: CostEndpoint
  /** Analysed runs with a metered cost, and without one (their agent's report is their only cost). */
  readonly meteredRuns: number
  readonly unmeteredRuns: number
  /** Runs whose agent and metered costs disagree, in record order. */
  readonly disagreements: readonly CostDisagreement[]
}

/** Two costs disagree when they differ by more than 1% of the larger, or by more than a cent, whichever is smaller. */
export function costsDisagree(agentUsd: number, meteredUsd: number): boolean {
  const difference = Math.abs(agentUsd - meteredUsd)
  return difference > Math.min(0.01 * Math.max(agentUsd, meteredUsd), 0.01) + 1e-12
}

/**
 * What a run costs under `endpoint`: its metered cost when it was metered and
 * the endpoint is `metered`, else the agent's own report. (A timeout's
 * charge, the budget cap, is applied by the caller.)
 */
export function endpointCostUsd(record: RecordedRun, endpoint: CostEndpoint = 'metered'): number {
  return endpoint === 'metered' && record.metered !== undefined && record.metered !== null ? record.metered.costUsd : record.costUsd
}

/** The cost summary of the analysed arms' records. Timeouts are charged the cap either way, so they are not compared. Pure. */
export function costSummary(records: readonly RecordedRun[], arms: readonly string[], endpoint: CostEndpoint = 'metered'): CostSummary {
  const analysed = records.filter((record) => arms.includes(record.arm))
  const metered = analysed.filter((record) => record.metered !== undefined && record.metered !== null)
  const disagreements = metered
    .filter((record) => record.outcome !== 'timeout' && costsDisagree(record.costUsd, record.metered!.costUsd))
    .map((record) => ({ task: record.task, arm: record.arm, seed: record.seed, agentUsd: record.costUsd, meteredUsd: record.metered!.costUsd }))
  return { endpoint, meteredRuns: metered.length, unmeteredRuns: analysed.length - metered.length, disagreements }
}

/**
 * The report's cost sentences: the endpoint and how many runs were metered,
 * then (when any) the runs whose two costs disagree.
 */
export function costSentences(summary: CostSummary): string[] {
  const total = summary.meteredRuns + summary.unmeteredRuns
  const endpoint =
    summary.endpoint === 'metered'
      ? `The cost endpoint is the metered cost (pre-registered): what the harness's gateway counted from the provider's own usage fields; ${summary.meteredRuns} of ${total} run(s) were metered` +
        (summary.unmeteredRuns > 0 ? `, the other ${summary.unmeteredRuns} are costed from their agent's own report.` : '.')
      : `The cost endpoint is the agent's own report (pre-registered); ${summary.meteredRuns} of ${total} run(s) were also metered by the harness's gateway.`
  const lines = [endpoint]
  if (summary.disagreements.length > 0) {
    lines.push(
      `${summary.disagreements.length} run(s) cost-disagrees: the agent's own cost differs from the metered one by more than 1% or a cent (the agent's report was wrong, forged, or missed spend the gateway saw).`,
    )
  }
  return lines
}
