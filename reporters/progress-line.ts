import type { Vitest } from 'vitest/node'
import { forecastExperiment } from '../src/runs/forecast.ts'
import type { PlannedRun } from '../src/runs/plan.ts'
import type { PreparedExperiment } from '../src/runs/prepare.ts'
import { formatProgress, progressOf } from '../src/runs/progress.ts'
import { readSpecFile } from '../src/runs/spec-file.ts'
import type { ExperimentLedger } from './ledger.ts'

/** The plan of the current spec as spec.json keeps it (the prepared plan when spec.json is another spec's or absent). */
export function currentPlan(prepared: PreparedExperiment): readonly PlannedRun[] {
  const specFile = readSpecFile(prepared.experiment.outDir)
  return specFile?.plan != null && specFile.recorded.specSha256 === prepared.specSha256 ? specFile.plan : prepared.plan
}

/**
 * The experiment's progress line now. `plan` is spec.json's plan, read once
 * by the caller: the line is drawn many times a second. `sharded`: a shard
 * counts its own collected cases, an unsharded run what the plan still lacks
 * (Vitest collects a task's module only when it starts).
 */
export function progressLine(ledger: ExperimentLedger, plan: readonly PlannedRun[], sharded: boolean): string {
  const { prepared, appended } = ledger.recorder!
  const current = [...ledger.recorder!.recorded.values()].filter((record) => record.specSha256 === prepared.specSha256)
  const done = appended + ledger.failed + ledger.stopped + ledger.overBudget
  const remaining = sharded ? Math.max(0, ledger.toRun - done - ledger.skipped) : Math.max(0, plan.length - current.length - ledger.failed - ledger.stopped - ledger.overBudget)
  const etaMs = ledger.firstStartedAt === undefined || appended === 0 ? null : ((Date.now() - ledger.firstStartedAt) / done) * remaining
  return formatProgress(
    progressOf({
      experiment: ledger.provide.name,
      arms: Object.keys(prepared.experiment.spec.arms),
      records: current,
      planned: plan.length,
      forecastUsd: forecastExperiment(prepared).totalUsd,
      etaMs,
    }),
  )
}

/** The reporters Vitest created for this invocation (not in its public types; empty where it is not there). */
export function activeReporters(vitest: Vitest | undefined): unknown[] {
  const reporters = (vitest as unknown as { reporters?: unknown[] } | undefined)?.reporters
  return Array.isArray(reporters) ? reporters : []
}

/**
 * In a terminal, Vitest's default reporter keeps a live summary at the bottom
 * of the screen; `lines()` joins it. Returns false when there is no such
 * summary (off a terminal, other reporters): then the caller prints plain
 * lines every few runs instead.
 */
export function attachLiveLines(vitest: Vitest | undefined, lines: () => string[]): boolean {
  if (!process.stdout.isTTY) return false
  const summary = activeReporters(vitest)
    .map((reporter) => (reporter as unknown as { summary?: { createSummary?: () => string[] } }).summary)
    .find((candidate) => typeof candidate?.createSummary === 'function')
  if (summary === undefined) return false
  const original = summary.createSummary!.bind(summary)
  summary.createSummary = () => [...original(), ...lines()]
  return true
}

/** Reporters that print a machine-readable document to stdout unless given an output file. */
const STDOUT_DOCUMENTS = new Set(['json', 'junit', 'tap', 'tap-flat'])

/** True when a reporter prints its document to stdout (junit or json without an output file): our lines then go to stderr. */
export function printsDocumentToStdout(vitest: Vitest): boolean {
  const outputFile = (vitest.config as unknown as { outputFile?: string | Record<string, string> }).outputFile
  const reporters = vitest.config.reporters as unknown as unknown[]
  return reporters.some((entry) => {
    if (!Array.isArray(entry)) return false
    const [reference, options] = entry as [unknown, Record<string, unknown> | undefined]
    if (typeof reference !== 'string' || !STDOUT_DOCUMENTS.has(reference)) return false
    if (typeof options?.outputFile === 'string') return false
    if (typeof outputFile === 'string') return false
    return typeof outputFile !== 'object' || outputFile[reference] === undefined
  })
}
