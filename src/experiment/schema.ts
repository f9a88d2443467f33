import { z } from 'zod'

/**
 * The pre-registered experiment: everything fixed before the first run. Parsed
 * strictly (unknown keys are errors: a typo must not silently fall back to a
 * default) and normalised with defaults, so the spec hash covers what runs.
 */

const name = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes (it names a Vitest project and a folder)')

/** Which agent runs, and how. Adapters validate their own `options`. */
export const AgentSpecSchema = z.strictObject({
  /** `gold` and `noop` need no model; the others drive a real CLI or SDK. */
  kind: z.enum(['gold', 'noop', 'claude-code', 'codex', 'gemini', 'cursor', 'command']),
  /** The model id passed to the agent (`--model`). */
  model: z.string().min(1).optional(),
  /** The executable to run, when not the pinned npm dependency (for `command`, the command itself). */
  bin: z.string().min(1).optional(),
  /** Extra arguments, appended after the adapter's own. */
  args: z.array(z.string()).default([]),
  /** Turn limit, where the agent has one (`--max-turns`). */
  maxTurns: z.number().int().positive().optional(),
  /** Adapter-specific options (documented per adapter). */
  options: z.record(z.string(), z.unknown()).default({}),
})
export type AgentSpec = z.infer<typeof AgentSpecSchema>

/** An arm's agent may override any field of the experiment's agent. */
export const AgentOverrideSchema = AgentSpecSchema.partial()

/** What an arm changes in a fresh workspace before the agent starts. */
export const ArmSetupSchema = z.strictObject({
  /** Files to add: workspace path → source path (relative to the experiment file's folder). */
  files: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Shell commands run in the workspace (bash -c), in order, before the agent. */
  commands: z.array(z.string().min(1)).default([]),
  /** Environment variables for the agent (and the setup commands). */
  env: z.record(z.string(), z.string()).default({}),
  /** Directories put first on the agent's PATH (relative to the experiment file's folder). */
  path: z.array(z.string().min(1)).default([]),
})
export type ArmSetup = z.infer<typeof ArmSetupSchema>

/** One configuration of the agent. */
export const ArmSpecSchema = z.strictObject({
  description: z.string().optional(),
  agent: AgentOverrideSchema.default({}),
  setup: ArmSetupSchema.prefault({}),
  /**
   * Manipulation check: the hook events the arm's tool installs (e.g.
   * `UserPromptSubmit`, `PostToolUse`). A run in which none of them fired is a
   * harness failure, not evidence.
   */
  hooks: z.array(z.string().min(1)).default([]),
  /** The tool under test and its pinned version, recorded in `versions.tool`. */
  tool: z.strictObject({ name: z.string().min(1), version: z.string().min(1) }).optional(),
  /**
   * Skill experiments: which skills of the library the workspace holds, and the
   * agent's setting sources. Filled in for the generated conditions.
   */
  skills: z
    .strictObject({
      /** `target`, `irrelevant`, `related`, `unrelated`, `all`, or a skill's name. */
      include: z.array(z.string().min(1)),
      /** The agent's setting sources (`[]` loads none, `['project']` loads the workspace's skills). */
      settingSources: z.array(z.string().min(1)),
    })
    .optional(),
  /** Which tasks run this arm: all, only tasks with a target skill, or only negative-control tasks (`target_skill: "none"`). */
  tasks: z.enum(['all', 'positive', 'negative-control']).default('all'),
})
export type ArmSpec = z.infer<typeof ArmSpecSchema>

/** The conditions of a skill experiment (the skills benchmark's six, plus `sanity` for negative-control tasks). */
export const SKILL_CONDITIONS = ['control', 'target', 'negative', 'full', 'target_plus_one', 'target_plus_unrelated', 'sanity'] as const
export type SkillCondition = (typeof SKILL_CONDITIONS)[number]

/**
 * What each condition loads. `sanity` enables the project's setting source
 * with no skill in it: for a negative-control task it separates the effect of
 * the setting itself from the effect of any skill's content.
 */
export const SKILL_CONDITION_ARMS: Readonly<Record<SkillCondition, Pick<ArmSpec, 'skills' | 'tasks' | 'description'>>> = {
  control: { description: 'no skills, no setting sources', skills: { include: [], settingSources: [] }, tasks: 'all' },
  target: { description: 'only the target skill', skills: { include: ['target'], settingSources: ['project'] }, tasks: 'positive' },
  negative: { description: 'only the irrelevant skill (negative control)', skills: { include: ['irrelevant'], settingSources: ['project'] }, tasks: 'positive' },
  full: { description: 'every skill of the library', skills: { include: ['all'], settingSources: ['project'] }, tasks: 'all' },
  target_plus_one: { description: 'the target skill plus a related one', skills: { include: ['target', 'related'], settingSources: ['project'] }, tasks: 'positive' },
  target_plus_unrelated: {
    description: 'the target skill plus an unrelated one (interaction control)',
    skills: { include: ['target', 'unrelated'], settingSources: ['project'] },
    tasks: 'positive',
  },
  sanity: { description: 'project settings on, no skills (negative-control tasks)', skills: { include: [], settingSources: ['project'] }, tasks: 'negative-control' },
}

/** A skill experiment's library and how its conditions pick skills. */
export const SkillsSpecSchema = z.strictObject({
  /** The skill library: `<name>/SKILL.md` folders, relative to the experiment file's folder. */
  library: z.string().min(1),
  /** Where skills go in the workspace (default: the folder the agent reads, e.g. `.claude/skills`). */
  dir: z.string().min(1).optional(),
  /** The conditions to run (default: all of them). */
  conditions: z
    .array(z.enum(SKILL_CONDITIONS))
    .min(2)
    .default([...SKILL_CONDITIONS]),
  /** For `target_plus_one`: each target skill's related skill. */
  related: z.record(z.string(), z.string()).default({}),
  /** For `target_plus_unrelated`: each target skill's unrelated skill (default: the task's irrelevant_skill). */
  unrelated: z.record(z.string(), z.string()).default({}),
  /** The sweep history file, relative to the project root (default: `<output>/effectiveness-history.jsonl`). */
  history: z.string().min(1).optional(),
})
export type SkillsSpec = z.infer<typeof SkillsSpecSchema>

/** Which task folders the experiment runs. */
export const TaskSelectionSchema = z.strictObject({
  /** The task set folder, relative to the experiment file's folder. */
  dir: z.string().min(1).default('.'),
  /** Only these tasks, in this order: each a folder name (`001-greeting`) or the task id it starts with (`001`). */
  include: z.array(z.string().min(1)).optional(),
  /** Only the first N tasks (by folder name), after `include`: a smoke test. */
  first: z.number().int().positive().optional(),
})

/** An α- or β-spending function: Lan–DeMets O'Brien–Fleming or Pocock, or Hwang–Shih–DeCani with parameter γ. */
export const SpendingSchema = z.union([z.enum(['obrien-fleming', 'pocock']), z.strictObject({ gamma: z.number().finite() })])

/**
 * A pre-registered group-sequential design (docs/analysis.md): interim looks
 * at fractions of the planned tasks (or task counts), each taken when every
 * run of its tasks is recorded, in the plan's task order; efficacy boundaries
 * of the exact signed-rank test from an α-spending function; optional
 * non-binding futility. Part of the spec hash like every decision parameter.
 */
export const SequentialSchema = z
  .strictObject({
    /** Where the looks fall: fractions of the planned tasks (each in (0, 1], the last 1), or task counts (the last all of them). */
    looks: z.array(z.number().positive()).min(1),
    spending: SpendingSchema.default('obrien-fleming'),
    /** Stop for futility at an interim look: by β-spending under the design effect, or when the conditional power falls below a level. */
    futility: z
      .union([z.strictObject({ spending: SpendingSchema, beta: z.number().gt(0).lt(1).optional() }), z.strictObject({ conditionalPower: z.number().gt(0).lt(1) })])
      .optional(),
    /** Futility is non-binding: the efficacy boundaries are computed as if it never stopped, so ignoring it keeps α. */
    binding: z
      .literal(false, { error: 'binding futility is not supported: the boundaries are computed as if futility never stopped (non-binding), so set binding: false or leave it out' })
      .default(false),
  })
  .superRefine((design, ctx) => {
    const { looks } = design
    const fractions = looks.every((look) => look <= 1)
    looks.forEach((look, i) => {
      if (i > 0 && !(look > looks[i - 1]!)) ctx.addIssue({ code: 'custom', path: ['looks', i], message: `looks must increase (${looks.join(', ')})` })
      if (!fractions && !Number.isInteger(look))
        ctx.addIssue({ code: 'custom', path: ['looks', i], message: `${look} is neither a fraction of the planned tasks (all looks ≤ 1) nor a task count (a whole number)` })
    })
    if (fractions && looks.at(-1) !== 1)
      ctx.addIssue({ code: 'custom', path: ['looks', looks.length - 1], message: 'the last look is at all the planned tasks: end the fractions with 1' })
  })
export type Sequential = z.infer<typeof SequentialSchema>

/**
 * What one run may use (`sandbox.limits`): processes at once, memory and
 * disk in MiB, CPU cores (null: no quota). The defaults are well above what a
 * real agent run uses (the demo's Claude Code runs stay under 60 processes
 * and 700 MiB) and below what would hurt a CI machine; the same numbers as
 * `DEFAULT_LIMITS` of `src/sandbox/limits.ts`, which applies them where no
 * experiment speaks (a test asserts they agree). A run past one is unsolved,
 * the limit named in its record.
 */
export const SandboxLimitsSchema = z.strictObject({
  processes: z.number().int().min(16).default(1024),
  memoryMb: z.number().int().min(64).default(4096),
  diskMb: z.number().int().min(16).default(4096),
  cpu: z.number().positive().nullable().default(null),
})

/** The decision rule's parameters, fixed before the first run. */
export const DecisionRuleSchema = z.strictObject({
  alpha: z.number().gt(0).lt(1).default(0.05),
  /** Non-inferiority margin in solved tasks. */
  margin: z.number().int().nonnegative().default(1),
  resamples: z.number().int().positive().default(10_000),
  bootstrapSeed: z.union([z.number().int(), z.string()]).default(20261014),
  /** Power analysis: the target power and the median reduction to detect. */
  power: z.number().gt(0).lt(1).default(0.8),
  effect: z.number().gt(0).lt(1).default(0.15),
  /** A group-sequential design; absent: the fixed design (every planned run, one analysis). */
  sequential: SequentialSchema.optional(),
  /**
   * Which cost is the primary endpoint: `metered`, the harness's gateway's
   * count from the provider's own usage fields (where a run's model traffic
   * was metered; otherwise its agent's report), or `agent`, the agent's own
   * report. Both are reported; runs where they disagree are flagged.
   */
  cost: z.enum(['metered', 'agent']).default('metered'),
})
export type DecisionRule = z.infer<typeof DecisionRuleSchema>

/**
 * One change made to a pre-registered experiment, in its change log: the day
 * it was made (`YYYY-MM-DD`), what changed and why. After the first recorded
 * run a changed spec is accepted only with a new entry dated on or after the
 * last recorded run; earlier entries are never edited or removed.
 */
export const ChangeLogEntrySchema = z.strictObject({
  date: z.iso.date('a date written YYYY-MM-DD'),
  change: z.string().trim().min(1, 'say what changed'),
  reason: z.string().trim().min(1, 'say why it changed'),
})
export type ChangeLogEntry = z.infer<typeof ChangeLogEntrySchema>

/**
 * The pre-registration: the document that fixes the design (its bytes are in
 * the spec hash) and the change log (kept out of the hash, so adding a note
 * does not split the data; the recorded spec.json keeps every entry it saw).
 */
export const PreregistrationSchema = z
  .strictObject({
    /** The pre-registration document, relative to the experiment file's folder. */
    document: z.string().min(1).optional(),
    /** Every change after the design was fixed, oldest first. */
    changes: z.array(ChangeLogEntrySchema).default([]),
  })
  .superRefine((preregistration, ctx) => {
    preregistration.changes.forEach((entry, index) => {
      const before = preregistration.changes[index - 1]
      if (before !== undefined && entry.date < before.date) {
        ctx.addIssue({
          code: 'custom',
          path: ['changes', index, 'date'],
          message: `${entry.date} is before the entry above it (${before.date}): the change log is in date order, oldest first`,
        })
      }
    })
  })

/** What the experiment is for; a pilot's report is labelled as one. */
export const StageSchema = z.enum(['pilot', 'confirmatory', 'smoke', 'demo', 'example'])

export const ExperimentSchema = z
  .strictObject({
    name,
    description: z.string().optional(),
    stage: StageSchema.default('pilot'),
    tasks: z
      .union([
        z
          .string()
          .min(1)
          .transform((dir): z.output<typeof TaskSelectionSchema> => ({ dir })),
        TaskSelectionSchema,
      ])
      .default({ dir: '.' }),
    agent: AgentSpecSchema,
    /** The arms (for a skill experiment: overrides of its generated conditions, by condition name). */
    arms: z.record(name.or(z.enum(SKILL_CONDITIONS)), ArmSpecSchema).default({}),
    /** The control arm; every other arm is compared with it (a skill experiment's is `control`). */
    control: name.or(z.enum(SKILL_CONDITIONS)).optional(),
    /** A skill experiment: arms are generated from the conditions and each task's metadata. */
    skills: SkillsSpecSchema.optional(),
    seeds: z.number().int().positive().default(3),
    /** Seed of the order in which runs are declared (seedrandom). */
    orderSeed: z.union([z.number().int(), z.string()]).default(20261014),
    /** Budget cap per run in USD (the agent's `--max-budget-usd`; a timeout is charged this). */
    budgetUsd: z.number().positive(),
    /** Wall-clock timeout per agent run, in seconds. */
    timeoutSeconds: z.number().positive().default(900),
    /** Wall-clock timeout for the oracle, in seconds. */
    oracleTimeoutSeconds: z.number().positive().default(300),
    /** Harness failures: attempts per run (1 = no retry) and the first backoff (doubling). */
    retries: z
      .strictObject({
        attempts: z.number().int().positive().default(3),
        backoffSeconds: z.number().nonnegative().default(5),
      })
      .prefault({}),
    decision: DecisionRuleSchema.prefault({}),
    /** The agent's environment is an allowlist: host variables passed through, and fixed ones. */
    env: z
      .strictObject({
        pass: z.array(z.string().min(1)).default([]),
        set: z.record(z.string(), z.string()).default({}),
      })
      .default({ pass: [], set: {} }),
    /**
     * The agent's sandbox. By default every agent, setup and oracle process runs
     * in bubblewrap with its own namespaces and no network beyond the scripted
     * model; `allow` names the hosts (`api.anthropic.com`, `*.example.com`,
     * `host:port`) it may reach through the harness's proxy. `'none'` runs
     * UNSANDBOXED, and every record and report says so.
     */
    sandbox: z
      .union([
        z.literal('none'),
        z.strictObject({
          allow: z
            .array(
              z
                .string()
                .min(1)
                .regex(/^[A-Za-z0-9*.:[\]-]+$/, 'a host name, *.domain or host:port'),
            )
            .default([]),
          limits: SandboxLimitsSchema.prefault({}),
        }),
      ])
      .default({ allow: [], limits: { processes: 1024, memoryMb: 4096, diskMb: 4096, cpu: null } }),
    /** Executables whose host installs are removed from the agent's PATH (the tool under test). */
    cleanPath: z.array(z.string().min(1)).default([]),
    /** Output folder for runs.jsonl and reports, relative to the project root. */
    output: z.string().min(1).optional(),
    /** Tasks run in parallel across this many Vitest workers. */
    maxWorkers: z.number().int().positive().default(1),
    /** When true an unsolved run fails its test case (pass means solved, not just measured). */
    failUnsolved: z.boolean().default(false),
    /** Total spend the experiment may forecast (validate refuses a plan above it). */
    maxBudgetUsd: z.number().positive().optional(),
    /** Forecast cost of one run, for the plan (defaults to the budget cap). */
    estimatedRunCostUsd: z.number().nonnegative().optional(),
    /** The pre-registration document and the change log. */
    preregistration: PreregistrationSchema.optional(),
    /**
     * The pinned model's training cutoff (`YYYY-MM-DD`): tasks whose fix was
     * committed on or before it may be in the model's training data, and are
     * flagged as possibly contaminated in the report and in `validate`.
     */
    trainingCutoff: z.iso.date('a date written YYYY-MM-DD').optional(),
  })
  .transform((spec, ctx) => {
    const output = spec.output ?? `bench/task_outcome/${spec.name}`
    if (spec.decision.sequential !== undefined && (spec.skills !== undefined || Object.keys(spec.arms).length !== 2)) {
      ctx.addIssue({
        code: 'custom',
        path: ['decision', 'sequential'],
        message: 'a sequential design compares one treatment with the control (two arms, no skill conditions): its boundaries are not Holm-adjusted over a family',
      })
    }
    if (spec.skills !== undefined) {
      const conditions = spec.skills.conditions
      for (const arm of Object.keys(spec.arms)) {
        if (!(conditions as readonly string[]).includes(arm)) {
          ctx.addIssue({ code: 'custom', path: ['arms', arm], message: `is not one of the skill conditions (${conditions.join(', ')})` })
        }
      }
      const arms = Object.fromEntries(conditions.map((condition) => [condition, { ...spec.arms[condition]!, ...SKILL_CONDITION_ARMS[condition] }]))
      for (const condition of conditions) if (spec.arms[condition] === undefined) arms[condition] = { ...ArmSpecSchema.parse({}), ...SKILL_CONDITION_ARMS[condition] }
      if (!conditions.includes('control')) ctx.addIssue({ code: 'custom', path: ['skills', 'conditions'], message: 'must include "control"' })
      return { ...spec, arms, control: spec.control ?? 'control', output }
    }
    if (Object.keys(spec.arms).length < 2) ctx.addIssue({ code: 'custom', path: ['arms'], message: 'name at least two arms' })
    if (spec.control === undefined) ctx.addIssue({ code: 'custom', path: ['control'], message: 'name the control arm' })
    else if (!(spec.control in spec.arms)) {
      ctx.addIssue({ code: 'custom', path: ['control'], message: `"${spec.control}" is not one of the arms (${Object.keys(spec.arms).join(', ')})` })
    }
    return { ...spec, control: spec.control ?? '', output }
  })

/** What `defineExperiment` accepts (defaults may be left out). */
export type ExperimentInput = z.input<typeof ExperimentSchema>
/** A parsed experiment: defaults applied, every field present. */
export type Experiment = z.output<typeof ExperimentSchema>
