import { z } from 'zod'
import type { AgentRunResult } from '../agents/types.ts'
import { CostSourceSchema, MeteredSchema, TokensSchema } from '../agents/usage.ts'
import type { HarnessFailure } from '../errors.ts'
import type { LoadedExperiment } from '../experiment/load.ts'
import type { OracleJudgement } from '../oracle/judgement.ts'
import { OracleSchema } from '../oracle/result.ts'
import type { LimitName, SandboxDenials } from '../sandbox/index.ts'
import type { Task } from '../tasks/task.ts'
import { transcriptPath } from './artifacts.ts'
import { manipulationRecord } from './manipulation.ts'

/**
 * The `RunRecord`: one line of `runs.jsonl`, one measured (task, arm, seed).
 * Field names and meanings are DESIGN.md's contract ("runs.jsonl — one line
 * per recorded run"); the analysis and every published result read these.
 */

const count = z.number().int().nonnegative()
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256')
const isoTime = z.iso.datetime({ offset: true })

/** What a run measured. A timeout is unsolved at the arm's budget cap. */
export const OutcomeSchema = z.enum(['solved', 'unsolved', 'timeout'])
export type Outcome = z.infer<typeof OutcomeSchema>

/** The parts the agents and the oracle define, re-exported so readers of records find them here too. */
export { CostSourceSchema, MeteredSchema, TokensSchema, type CostSource, type Metered, type Tokens } from '../agents/usage.ts'
export { OracleSchema, TestsOracleSchema, VerifyOracleSchema, type OracleResult } from '../oracle/result.ts'

/** Manipulation check: how often the treatment's hooks ran inside the session. */
export const ManipulationSchema = z.strictObject({
  hookPromptsRecorded: count,
  hookEditsRecorded: count,
  /** The CLI's own `hook_response` lines by hook event (absent in records written before it, and for agents that print none). */
  hooksReported: z.record(z.string(), count).optional(),
  /** The harness's count of hook starts by event, from the wrapped hook commands' channel (absent where it wrapped none). */
  hookStarts: z.record(z.string(), count).optional(),
})
export type Manipulation = z.infer<typeof ManipulationSchema>

/** Versions pinned for the experiment; a resume refuses to mix them. */
export const VersionsSchema = z.strictObject({
  /** task-outcome's own version. */
  harness: z.string(),
  /** The agent CLI's version (`claude --version`), or the built-in agent's name@harness version. */
  agent: z.string(),
  /** The model the agent reported using, null for agents without one. */
  model: z.string().nullable(),
  /** The tool under test (the arm's add-on), null in arms without one. */
  tool: z.string().nullable(),
  /** `process.version` of the harness. */
  node: z.string(),
  /** The sandbox every agent process ran in (`bubblewrap 0.8.0`), or `none (UNSANDBOXED)`. */
  sandbox: z.string(),
  /** The oracle's toolchain, resolved by the harness to absolute paths: `node v24.1.0 /usr/bin/node; python3 3.11.2 /usr/bin/python3.11; bash 5.2.15 /usr/bin/bash`. */
  toolchain: z.string(),
  /**
   * The test runner the oracle judged with, read from the task's prepared
   * dependency folder (`vitest 4.1.12`) or asked of the toolchain
   * (`pytest 8.3.5`, `node:test v24.1.0`); null when the task's command runs
   * something else (a folder task's `verify.sh`). Optional: records from
   * before the field existed lack it.
   */
  testRunner: z.string().nullable().optional(),
})
export type Versions = z.infer<typeof VersionsSchema>

/** One harness failure that was retried before this run was measured. */
export const HarnessRetrySchema = z.strictObject({
  attempt: z.number().int().positive(),
  reason: z.string(),
  message: z.string(),
})
export type HarnessRetry = z.infer<typeof HarnessRetrySchema>

/** One host a run reached through the sandbox's proxy: its connections, bytes each way, and whether it is a model or embedding API. */
export const EgressSchema = z.strictObject({
  host: z.string().min(1),
  connections: count,
  bytesUp: count,
  bytesDown: count,
  modelApi: z.boolean(),
})

/** A run's record as the harness builds it, before the store links it into the chain. */
export const MeasuredRunSchema = z.strictObject({
  experiment: z.string().min(1),
  specSha256: sha256,
  task: z.string().min(1),
  arm: z.string().min(1),
  seed: z.number().int().positive(),
  /** Position of this run in the experiment's seeded plan (0-based). */
  order: count,
  outcome: OutcomeSchema,
  solved: z.boolean(),
  costUsd: z.number().nonnegative(),
  costSource: CostSourceSchema,
  tokens: TokensSchema.nullable(),
  /** What the harness's metering gateway counted from the provider's own usage fields, or null when the agent's traffic was not metered. */
  metered: MeteredSchema.nullable(),
  turns: count.nullable(),
  toolCalls: count.nullable(),
  toolCallsBeforeFirstEdit: count.nullable(),
  wallMs: z.number().nonnegative(),
  /** Files the agent changed, relative to the workspace root, sorted. */
  changedFiles: z.array(z.string()),
  /** Whether the agent's changes touched a gold file (null when the task names none). */
  goldFileTouched: z.boolean().nullable(),
  oracle: OracleSchema,
  manipulation: ManipulationSchema.nullable(),
  versions: VersionsSchema,
  /**
   * What the sandbox refused the agent: connections the proxy turned away
   * (counted), reads and writes (null: bubblewrap refuses them without
   * reporting), and a few examples; null when the run was UNSANDBOXED.
   */
  sandbox: z
    .strictObject({
      denied: z.strictObject({ read: count.nullable(), write: count.nullable(), network: count }),
      examples: z.array(z.string()),
      /** Every host the run reached through the sandbox's proxy (model traffic through the metering gateway is not here: it is `metered`). */
      egress: z.array(EgressSchema),
    })
    .nullable(),
  /**
   * The resource limit the run reached (`sandbox.limits`: an out-of-memory
   * kill, the process limit, its disk full), which makes it unsolved; null
   * when it reached none or ran UNSANDBOXED. Absent in records written before
   * limits existed.
   */
  limit: z.enum(['processes', 'memory', 'disk']).nullable().optional(),
  /** Transcript path relative to the experiment's output folder (git-ignored), null when the agent keeps none. */
  transcript: z.string().nullable(),
  transcriptSha256: sha256.nullable(),
  harnessRetries: z.array(HarnessRetrySchema),
  /** Patterns in the agent's change that disarm tests rather than fix code (`src/integrity/`): reported beside the outcome, never changing it. */
  integrityFlags: z.array(z.string()),
  /**
   * A failure of the harness after the agent ran (reading its changes, the oracle's copy, the oracle) that the clean
   * parent does not reproduce: what the agent left caused it, so the run is unsolved for it. Null otherwise; absent in
   * records made before it existed.
   */
  harnessError: z.strictObject({ reason: z.string(), message: z.string() }).nullable().optional(),
  /** SHA-256 of every skill the run's workspace held, by skill name (skill experiments only). */
  skills: z.record(z.string(), sha256).optional(),
  /** The git-fix task's source repository by its portable name (`src/tasks/repository-name.ts`); absent for folder tasks and in records made before it existed. */
  repository: z.string().min(1).optional(),
  startedAt: isoTime,
  finishedAt: isoTime,
})
/** The record a run produces (the case body's `meta.run`); the store adds `prevSha256` when it appends it. */
export type RunRecord = z.infer<typeof MeasuredRunSchema>

/** One line of runs.jsonl exactly as the store writes it: no field missing, none unknown. */
export const RunRecordSchema = MeasuredRunSchema.extend({
  /** The hash chain: SHA-256 of the previous line's UTF-8 bytes without its newline (of the empty string on line 1). */
  prevSha256: sha256,
})

/** The fields every reader needs (the analysis builds records of just these in memory). */
const RecordedFieldsSchema = z.looseObject({
  experiment: z.string().min(1),
  specSha256: z.string(),
  task: z.string().min(1),
  arm: z.string().min(1),
  seed: z.number().int().positive(),
  outcome: OutcomeSchema,
  solved: z.boolean(),
  costUsd: z.number().nonnegative(),
  costSource: CostSourceSchema,
})

/**
 * What readers of runs.jsonl accept: the fields the analysis needs and the
 * line's link in the hash chain, any others passed through, so records from a
 * newer harness (or hand-added fields) still load.
 */
export const RecordedRunSchema = RecordedFieldsSchema.extend({
  /** The hash chain: SHA-256 of the previous line (of the empty string on line 1). The store adds it when it appends. */
  prevSha256: sha256,
})

/** A recorded run as the analysis reads it (`prevSha256` is set on every record read from a file; records built in memory have none). */
export type RecordedRun = z.infer<typeof RecordedFieldsSchema> & { readonly prevSha256?: string } & Partial<RunRecord>

/** Which run a record is of: the experiment, the task, the arm, the seed, its place in the plan, the spec it ran under. */
export interface RunIdentity {
  readonly experiment: LoadedExperiment
  readonly task: Task
  readonly arm: string
  readonly seed: number
  /** Position in the seeded plan. */
  readonly order: number
  readonly specSha256: string
}

/** What one attempt measured, before it becomes a record. */
export interface TrialResult {
  readonly agent: AgentRunResult
  /** The run's versions, the model as the agent reported it (or as the spec names it). */
  readonly versions: Versions
  /** What the sandbox refused (null when UNSANDBOXED). */
  readonly sandbox: SandboxDenials | null
  readonly judgement: OracleJudgement
  readonly changedFiles: string[]
  /** Whether the change touched a gold file (null when the task names none). */
  readonly goldFileTouched: boolean | null
  /** SHA-256 of each skill the workspace held (skill experiments only). */
  readonly skills?: Record<string, string>
  /** Test-disarming patterns found in the agent's change. */
  readonly integrityFlags?: readonly string[]
  /** A failure of the harness after the agent ran that the clean parent does not reproduce: the run is unsolved for it. */
  readonly harnessError?: { readonly reason: string; readonly message: string }
  /** A task file or template written while the oracle ran: the run is measured but kept out of runs.jsonl, and the experiment stops. */
  readonly tampered?: HarnessFailure
  /** The resource limit the run reached, which makes it unsolved (`limit` in the record). */
  readonly limit?: LimitName | null
}

/** Builds the record of a measured trial. A timeout is unsolved at the budget cap; so is a run past a resource limit. */
export function buildRecord(run: RunIdentity, trial: TrialResult, retries: HarnessRetry[], startedAt: Date, finishedAt: Date): RunRecord {
  const { experiment, task, arm, seed } = run
  const armSpec = experiment.spec.arms[arm]!
  const timedOut = trial.agent.stop === 'timeout'
  const limit = trial.limit ?? null
  const solved = !timedOut && limit === null && trial.judgement.solved
  const hooks = manipulationRecord(armSpec.hooks, trial.agent)
  const transcript = trial.agent.transcriptSha256 === null ? null : transcriptPath({ task: task.id, arm, seed })
  return {
    experiment: experiment.spec.name,
    specSha256: run.specSha256,
    task: task.id,
    arm,
    seed,
    order: run.order,
    outcome: timedOut ? 'timeout' : solved ? 'solved' : 'unsolved',
    solved,
    costUsd: timedOut ? experiment.spec.budgetUsd : trial.agent.costUsd,
    costSource: timedOut ? 'budget-cap' : trial.agent.costSource,
    tokens: trial.agent.tokens,
    metered: trial.agent.metered ?? null,
    turns: trial.agent.turns,
    toolCalls: trial.agent.toolCalls,
    toolCallsBeforeFirstEdit: trial.agent.toolCallsBeforeFirstEdit,
    wallMs: Math.round(trial.agent.wallMs),
    changedFiles: trial.changedFiles,
    goldFileTouched: trial.goldFileTouched,
    oracle: trial.judgement.oracle,
    manipulation: hooks.manipulation,
    versions: { ...trial.versions },
    sandbox: trial.sandbox === null ? null : { denied: trial.sandbox.denied, examples: trial.sandbox.examples.slice(0, 5), egress: [...trial.sandbox.egress] },
    limit,
    transcript,
    transcriptSha256: trial.agent.transcriptSha256,
    harnessRetries: retries,
    integrityFlags: [...(trial.integrityFlags ?? []), ...(trial.judgement.integrityFlags ?? []), ...hooks.flags],
    harnessError: trial.harnessError ?? null,
    ...(trial.skills === undefined ? {} : { skills: trial.skills }),
    ...(task.kind === 'git-fix' ? { repository: task.repository } : {}),
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
  }
}
