import { SpecError } from '../errors.ts'
import type { LoadedExperiment } from '../experiment/load.ts'
import { harnessVersion } from '../version.ts'
import type { Versions } from './record.ts'

/**
 * The versions a run is made with, built in one place, and the one check
 * that a resume never mixes them. Every field but `model` is known before
 * the agent starts, so `checkVersions` runs before any money is spent; the
 * model is what the agent reports, so it is compared (by the same function)
 * once the session has ended, and a run with another model is not recorded.
 */

/** One version that differs from the recorded one. */
export interface VersionChange {
  readonly field: keyof Versions
  readonly recorded: string | null
  readonly current: string | null
}

/** The order fields are named in (the record's). */
const FIELDS: ReadonlyArray<keyof Versions> = ['harness', 'agent', 'model', 'tool', 'node', 'sandbox', 'toolchain', 'testRunner']

/**
 * The fields whose current value differs from the recorded one. A field
 * absent on either side is not compared (nothing recorded yet, not known
 * yet, or a record from before the field existed).
 */
export function versionChanges(recorded: Partial<Versions> | undefined, current: Partial<Versions>): VersionChange[] {
  if (recorded === undefined) return []
  return FIELDS.filter((field) => recorded[field] !== undefined && current[field] !== undefined && recorded[field] !== current[field]).map((field) => ({
    field,
    recorded: recorded[field] ?? null,
    current: current[field] ?? null,
  }))
}

/** A resume that would mix versions: names every field that differs, with both values. */
export class VersionMismatch extends SpecError {
  readonly changes: readonly VersionChange[]

  constructor(where: VersionCheckSite, changes: readonly VersionChange[]) {
    const named = changes.map((change) => `${change.field} ${change.recorded ?? 'none'} → ${change.current ?? 'none'}`).join(', ')
    super(
      `${where.run}: ${where.runsFile} holds runs made with other versions (${named}). ` +
        `A resume never mixes versions${where.afterRun === true ? '; this run is not recorded' : ''}: pin the recorded versions again, or start a new experiment.`,
    )
    this.changes = changes
  }
}

/** Where a version check is made, as its message names it. */
export interface VersionCheckSite {
  /** The run (`task › arm › seed 1`). */
  readonly run: string
  /** The runs file, relative to the project root. */
  readonly runsFile: string
  /** True for the check after the session (the model): the run is then not recorded. */
  readonly afterRun?: boolean
}

/** Throws `VersionMismatch` when `current` differs from `recorded` in any field both know. */
export function checkVersions(recorded: Partial<Versions> | undefined, current: Partial<Versions>, where: VersionCheckSite): void {
  const changes = versionChanges(recorded, current)
  if (changes.length > 0) throw new VersionMismatch(where, changes)
}

/** Fields that belong to the whole experiment: every arm's runs must agree on them. */
const EXPERIMENT_FIELDS = ['harness', 'node', 'sandbox', 'toolchain'] as const
/** Fields that belong to the agent: every arm with the same agent spec must agree on them. */
const AGENT_FIELDS = ['agent', 'model'] as const

/**
 * The recorded versions a run of `arm` is checked against, compared across
 * arms, not within one: the harness, Node, the sandbox and the toolchain of
 * any arm's runs (a baseline on one Node beside a tool arm on another is a
 * mix); the agent CLI and the model of the runs of any arm in `sameAgent`
 * (the arms whose agent spec is this arm's: an arm that names another agent
 * or model differs by design); the tool of this arm's own runs (arms differ
 * in it by design); and the test runner of the task's recorded runs (it
 * belongs to the task). The arm's own runs are looked at first. Undefined
 * when nothing is recorded.
 */
export function recordedVersionsFor(
  byArm: Readonly<Record<string, Versions>>,
  arm: string,
  taskTestRunner: string | null | undefined,
  sameAgent: readonly string[] = Object.keys(byArm),
): Partial<Versions> | undefined {
  const own = byArm[arm]
  const anyArm = own ?? Object.values(byArm)[0]
  const agentPeer = own ?? sameAgent.map((name) => byArm[name]).find((versions) => versions !== undefined)
  const recorded: Partial<Record<keyof Versions, string | null>> = {}
  for (const field of EXPERIMENT_FIELDS) if (anyArm !== undefined) recorded[field] = anyArm[field]
  for (const field of AGENT_FIELDS) if (agentPeer !== undefined) recorded[field] = agentPeer[field]
  if (own !== undefined) recorded.tool = own.tool
  if (taskTestRunner !== undefined) recorded.testRunner = taskTestRunner
  return Object.keys(recorded).length === 0 ? undefined : (recorded as Partial<Versions>)
}

/** What `runVersions` needs that only the run knows. */
export interface RunVersionInputs {
  readonly agentVersion: string
  readonly sandbox: string
  readonly toolchain: string
  readonly testRunner: string | null
}

/** The versions of a run of `arm`, as the record keeps them; `model` is null until the agent has reported one (`withModel`). */
export function runVersions(experiment: LoadedExperiment, arm: string, inputs: RunVersionInputs): Versions {
  const tool = experiment.spec.arms[arm]!.tool
  return {
    harness: harnessVersion,
    agent: inputs.agentVersion,
    model: null,
    tool: tool === undefined ? null : `${tool.name}@${tool.version}`,
    node: process.version,
    sandbox: inputs.sandbox,
    toolchain: inputs.toolchain,
    testRunner: inputs.testRunner,
  }
}

/** The prefix of `versions.model` for a run against the scripted model server: `scripted:claude-sonnet-4-5`. */
export const SCRIPTED_MODEL_PREFIX = 'scripted:'

/**
 * `versions.model` as recorded: the model named (null when none is), prefixed
 * with `scripted:` when the arm's agent talks to the scripted model server
 * (`options.scriptedModel`), so that no record, report or claim names the real
 * model for a run it never made.
 */
export function recordedModelName(model: string | null, agentOptions: unknown): string | null {
  const scripted = (agentOptions as { scriptedModel?: unknown } | undefined)?.scriptedModel
  if (scripted === undefined || scripted === false) return model
  return `${SCRIPTED_MODEL_PREFIX}${model ?? 'default'}`
}

/** Whether a recorded `versions.model` names the scripted model (a demonstration, never a claim). */
export function isScriptedModel(model: unknown): boolean {
  return typeof model === 'string' && model.startsWith(SCRIPTED_MODEL_PREFIX)
}

/** The versions known before the agent starts: all but the model. */
export function versionsBeforeRun(versions: Versions): Omit<Versions, 'model'> {
  const { model: _model, ...before } = versions
  return before
}
