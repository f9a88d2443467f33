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

/**
 * The recorded versions a run of `arm` is checked against: the arm's
 * recorded versions, with the test runner of the task's recorded runs (the
 * runner belongs to the task, not the arm). Undefined when nothing is recorded.
 */
export function recordedVersionsFor(byArm: Readonly<Record<string, Versions>>, arm: string, taskTestRunner: string | null | undefined): Partial<Versions> | undefined {
  const armVersions = byArm[arm]
  if (armVersions === undefined && taskTestRunner === undefined) return undefined
  const { testRunner: _armRunner, ...rest } = armVersions ?? {}
  return { ...rest, ...(taskTestRunner === undefined ? {} : { testRunner: taskTestRunner }) }
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

/** The versions known before the agent starts: all but the model. */
export function versionsBeforeRun(versions: Versions): Omit<Versions, 'model'> {
  const { model: _model, ...before } = versions
  return before
}
