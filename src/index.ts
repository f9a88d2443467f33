/**
 * task-outcome's public API: declare experiments, turn them into Vitest
 * projects, record and judge their runs; and what a custom agent or a
 * caller that catches errors needs.
 */

// Declaring experiments and running them as Vitest projects.
export { defineExperiment } from './experiment/define.ts'
export type { Experiment, ExperimentInput, ArmSpec, AgentSpec, DecisionRule } from './experiment/schema.ts'
export { experimentProject, type ExperimentProjectOptions } from './vitest/project.ts'
export { default as TaskOutcomeReporter } from '../reporters/task-outcome.ts'

// What is recorded: one line of runs.jsonl per measured run.
export type { RunRecord, Outcome } from './runs/record.ts'

// Writing an agent: the contract, what it is given, what it reports.
export type { Agent, AgentRunRequest, AgentRunResult, AgentStop } from './agents/types.ts'
export type { Tokens, CostSource } from './agents/usage.ts'
export type { Task, FolderTask, GitFixTask } from './tasks/task.ts'

// Errors: each with a stable `code` (`TASK_OUTCOME_…`); a run that measured nothing throws `HarnessFailure`.
export { TaskOutcomeError, HarnessFailure, SpecError, DataError, ProblemsError, type HarnessFailureReason, type Problem } from './errors.ts'
