import type { RecordedRun } from '../runs/record.ts'

/**
 * What each arm reached beyond the model: the hosts its runs contacted
 * through the sandbox's proxy (`sandbox.egress`), summed over the arm. Model
 * traffic through the metering gateway is in the cost; a model or embedding
 * host reached here is not, so a treatment that reached one the control did
 * not may look cheaper for spend that is simply off the books.
 */

/** One host an arm reached, over its runs. */
export interface ArmHost {
  readonly host: string
  /** Runs of the arm that reached it. */
  readonly runs: number
  readonly connections: number
  readonly bytesUp: number
  readonly bytesDown: number
  readonly modelApi: boolean
}

/** The egress part of a report: per analysed arm, its hosts by name. */
export interface EgressSummary {
  readonly arms: Readonly<Record<string, readonly ArmHost[]>>
}

/** Sums the analysed arms' egress. Records without `sandbox.egress` (UNSANDBOXED, an older harness) add nothing. Pure. */
export function egressSummary(records: readonly RecordedRun[], arms: readonly string[]): EgressSummary {
  const byArm: Record<string, ArmHost[]> = {}
  for (const arm of arms) {
    const hosts = new Map<string, { runs: number; connections: number; bytesUp: number; bytesDown: number; modelApi: boolean }>()
    for (const record of records) {
      if (record.arm !== arm) continue
      for (const entry of record.sandbox?.egress ?? []) {
        const sum = hosts.get(entry.host) ?? { runs: 0, connections: 0, bytesUp: 0, bytesDown: 0, modelApi: false }
        hosts.set(entry.host, {
          runs: sum.runs + 1,
          connections: sum.connections + entry.connections,
          bytesUp: sum.bytesUp + entry.bytesUp,
          bytesDown: sum.bytesDown + entry.bytesDown,
          modelApi: sum.modelApi || entry.modelApi,
        })
      }
    }
    byArm[arm] = [...hosts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([host, sum]) => ({ host, ...sum }))
  }
  return { arms: byArm }
}

/** The model or embedding hosts `treatment` reached that `control` did not. */
export function offTheBooksHosts(summary: EgressSummary, treatment: string, control: string): string[] {
  const controlHosts = new Set((summary.arms[control] ?? []).map((host) => host.host))
  return (summary.arms[treatment] ?? []).filter((host) => host.modelApi && !controlHosts.has(host.host)).map((host) => host.host)
}

/** The verdict's warning for a comparison, or null when the treatment reached no model host the control did not. */
export function offTheBooksSentence(summary: EgressSummary, treatment: string, control: string): string | null {
  const hosts = offTheBooksHosts(summary, treatment, control)
  if (hosts.length === 0) return null
  return `${treatment} contacted model or embedding host(s) ${control} did not: ${hosts.join(', ')}; spend there is not in the cost.`
}
