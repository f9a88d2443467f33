import type { RecordedRun } from '../runs/record.ts'
import { runLabel } from '../shared/run-label.ts'

/** `versions.sandbox` of records made without a sandbox (kept in step with src/sandbox's UNSANDBOXED). */
const UNSANDBOXED_PREFIX = 'none'

/** One run whose agent tried to reach beyond its sandbox (a flag for answer-seeking, not a verdict). */
export interface RunBeyondSandbox {
  readonly task: string
  readonly arm: string
  readonly seed: number
  /** Connections the sandbox's proxy refused. */
  readonly network: number
  /** A few of them (`CONNECT host:port`). */
  readonly examples: readonly string[]
}

/** What the report says about the sandbox the analysed runs ran in. */
export interface SandboxSummary {
  /** Every distinct `versions.sandbox` among the runs (`bubblewrap 0.8.0`, `none (UNSANDBOXED)`), sorted. */
  readonly versions: readonly string[]
  /** True when any analysed run ran without a sandbox. */
  readonly unsandboxed: boolean
  /** Runs with refused connections, in record order. */
  readonly beyond: readonly RunBeyondSandbox[]
}

/** The sandbox part of a report, from the analysed arms' records. Pure. */
export function sandboxSummary(records: readonly RecordedRun[], arms: readonly string[]): SandboxSummary {
  const analysed = records.filter((record) => arms.includes(record.arm))
  const versions = [...new Set(analysed.map((record) => record.versions?.sandbox).filter((version): version is string => typeof version === 'string'))].sort()
  const beyond = analysed
    .filter((record) => (record.sandbox?.denied.network ?? 0) > 0)
    .map((record) => ({ task: record.task, arm: record.arm, seed: record.seed, network: record.sandbox!.denied.network, examples: record.sandbox!.examples }))
  return { versions, unsandboxed: versions.some((version) => version.startsWith(UNSANDBOXED_PREFIX)), beyond }
}

/** The report's sandbox sentences: UNSANDBOXED said first and loudly, then the runs that tried to reach beyond. */
export function sandboxSentences(summary: SandboxSummary): string[] {
  const lines: string[] = []
  if (summary.unsandboxed)
    lines.push(`UNSANDBOXED: runs were made without a sandbox (${summary.versions.join(', ')}); the agent could reach the project, the host and the network.`)
  else if (summary.versions.length > 0) lines.push(`sandbox: ${summary.versions.join(', ')}.`)
  if (summary.beyond.length > 0) {
    lines.push(`${summary.beyond.length} run(s) tried to reach beyond their sandbox (refused; a flag, not a verdict):`)
    for (const run of summary.beyond) lines.push(`  ${runLabel(run)}: ${run.network} refused (${run.examples.slice(0, 3).join(', ')})`)
  }
  return lines
}
