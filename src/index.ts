/**
 * task-outcome's public API: declare experiments, turn them into Vitest
 * projects, record and judge their runs.
 */
export { defineExperiment } from './experiment/define.ts'
export type { Experiment, ExperimentInput, ArmSpec, AgentSpec } from './experiment/schema.ts'
export { experimentProject, type ExperimentProjectOptions } from './vitest/project.ts'
export { default as TaskOutcomeReporter } from '../reporters/task-outcome.ts'
export type { RunRecord, Outcome } from './runs/record.ts'
export type { Agent, AgentRunRequest, AgentRunResult } from './agents/types.ts'
export { HarnessFailure, SpecError, DataError } from './errors.ts'
