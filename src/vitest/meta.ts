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

declare module '@vitest/runner' {
  interface TaskMeta {
    /** The run's record: the case body puts it here, the reporter appends it to runs.jsonl. */
    run?: RunRecord
  }
}

declare module 'vitest' {
  interface ProvidedContext {
    taskOutcome: ExperimentProvide
  }
}
