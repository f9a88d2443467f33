import type { RunRecord } from '../runs/record.ts'

/** What an experiment project provides to the reporter (through `test.provide`). */
export interface ExperimentProvide {
  readonly name: string
  readonly file: string
  readonly exportName: string
  readonly root: string
  readonly outDir: string
}

/** How the note of a case skipped on resume starts (the reporter counts these). */
export const ALREADY_RECORDED = 'already recorded in'

/** How the note of a case not started because a harness failure stopped the experiment starts. */
export const NOT_RUN_STOPPED = 'not run: the experiment stopped'

/** How the note of a case not started because of the experiment's budget starts. */
export const NOT_RUN_BUDGET = 'not run: the budget'

/** The key under which an experiment project provides itself. */
export const PROVIDE_KEY = 'taskOutcome'

/**
 * A case's meta as task-outcome uses it: the run's record, which the case body
 * puts there and the reporter appends to runs.jsonl. Not a module augmentation
 * of TaskMeta: Vitest 4.1 declares it in @vitest/runner, Vitest 5 inside
 * vitest's own bundle, and one augmentation cannot reach both.
 */
export interface RunMeta {
  run?: RunRecord
}

/** The run record in a case's meta, if the case body put one there. */
export function runOf(meta: object): RunRecord | undefined {
  return (meta as RunMeta).run
}

/** Puts the run's record in a case's meta (Vitest carries it to the main process, across forks and merged shards). */
export function setRun(meta: object, record: RunRecord): void {
  ;(meta as RunMeta).run = record
}

declare module 'vitest' {
  interface ProvidedContext {
    taskOutcome: ExperimentProvide
  }
}
