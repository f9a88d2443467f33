// PLACEHOLDER by the lead so the reporter compiles until issue 3's analysis lands: replace this file wholesale.
import type { Experiment } from '../experiment/schema.ts'
import type { PlannedRun } from '../runs/plan.ts'
import type { RecordedRun } from '../runs/record.ts'

export interface ConcludeInput {
  readonly experiment: Experiment
  readonly outDir: string
  readonly records: readonly RecordedRun[]
  readonly plan: readonly PlannedRun[]
}
export interface Conclusion {
  readonly complete: boolean
  readonly missing: number
  readonly verdict: 'supported' | 'not supported' | 'no verdict'
  readonly text: string
  readonly files: readonly string[]
}
export function concludeExperiment(input: ConcludeInput): Conclusion {
  const recorded = new Set(input.records.map((r) => `${r.task}/${r.arm}/${r.seed}`))
  const missing = input.plan.filter((r) => !recorded.has(`${r.task}/${r.arm}/${r.seed}`)).length
  return { complete: missing === 0, missing, verdict: 'no verdict', text: `  no verdict (analysis not built yet; ${missing} run(s) missing)`, files: [] }
}
