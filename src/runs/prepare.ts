import { channel } from 'node:diagnostics_channel'
import { existsSync, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { ProblemsError, SpecError, type Problem } from '../errors.ts'
import { checkChangeLog } from '../experiment/change-log.ts'
import { buildSpecManifest, describeSpecChanges, specSha256, type SpecManifest } from '../experiment/hash.ts'
import type { ChangeLogEntry } from '../experiment/schema.ts'
import { loadExperiment, type ExperimentLocation, type LoadedExperiment } from '../experiment/load.ts'
import { checkContamination, type ContaminationCheck } from '../tasks/contamination.ts'
import { loadTaskSet } from '../tasks/load.ts'
import { armAppliesTo, loadSkillLibrary, resolveArmSkills } from '../workspace/skills.ts'
import type { Task } from '../tasks/task.ts'
import { planRuns, type PlannedRun } from './plan.ts'
import type { RecordedRun } from './record.ts'
import { readRecordedSpec, specFilePath } from './spec-file.ts'
import { knownSpecHashes, recordedChangeLog } from './spec-record.ts'
import { runsFilePath } from './store.ts'

/**
 * Where each preparation is announced (`{ experiment }`), for a check that an
 * invocation prepares its experiment once (a `node:diagnostics_channel`:
 * nothing listens in a normal run).
 */
export const PREPARED = channel('task-outcome:experiment-prepared')

/** An experiment ready to run: its tasks, its spec hash and its plan. */
export interface PreparedExperiment {
  readonly experiment: LoadedExperiment
  readonly tasks: readonly Task[]
  readonly manifest: SpecManifest
  readonly specSha256: string
  readonly plan: readonly PlannedRun[]
  /** The pre-registration's change log (not in the spec hash; spec.json keeps it). */
  readonly changeLog: readonly ChangeLogEntry[]
  /** Tasks fixed on or before the model's training cutoff; null when the experiment names no cutoff. */
  readonly contamination: ContaminationCheck | null
}

async function filesBelow(target: string): Promise<string[]> {
  if (!existsSync(target)) return []
  if (!statSync(target).isDirectory()) return [target]
  const entries = await readdir(target, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name))
}

/** The arms a task runs (a skill experiment's negative-control tasks run only their conditions). */
export function armsForTask(experiment: LoadedExperiment, task: Task): string[] {
  return Object.entries(experiment.spec.arms)
    .filter(([, arm]) => armAppliesTo(arm, task))
    .map(([name]) => name)
}

/** The skill library of a skill experiment, or undefined. */
export function skillLibraryDir(experiment: LoadedExperiment): string | undefined {
  return experiment.spec.skills === undefined ? undefined : path.resolve(experiment.dir, experiment.spec.skills.library)
}

/** Checks that every (task, condition) of a skill experiment resolves to skills of its library; returns the library's files. */
async function checkSkills(experiment: LoadedExperiment, tasks: readonly Task[]): Promise<string[]> {
  const libraryDir = skillLibraryDir(experiment)
  if (libraryDir === undefined || experiment.spec.skills === undefined) return []
  const library = await loadSkillLibrary(libraryDir)
  const problems: Problem[] = []
  const file = path.relative(experiment.root, experiment.file)
  for (const task of tasks) {
    for (const arm of armsForTask(experiment, task)) {
      resolveArmSkills(arm, experiment.spec.arms[arm]!, task, experiment.spec.skills, library, file, problems)
    }
  }
  if (problems.length > 0) {
    const relative = problems.map((problem) => ({ ...problem, file: path.isAbsolute(problem.file) ? path.relative(experiment.root, problem.file) : problem.file }))
    throw new ProblemsError(`experiment "${experiment.spec.name}": its skill conditions cannot be built:`, relative)
  }
  return [...library.values()].flatMap((skill) => skill.files)
}

/**
 * Loads an already-loaded experiment's tasks (validated: every problem at
 * once), hashes the spec and makes the seeded plan.
 */
export async function prepareLoadedExperiment(experiment: LoadedExperiment): Promise<PreparedExperiment> {
  const { spec } = experiment
  PREPARED.publish({ experiment: spec.name })
  const tasks = await loadTaskSet(
    experiment.tasksDir,
    { ...(spec.tasks.include === undefined ? {} : { include: spec.tasks.include }), ...(spec.tasks.first === undefined ? {} : { first: spec.tasks.first }) },
    experiment.root,
  )
  const armFiles = await Promise.all(Object.values(spec.arms).flatMap((arm) => Object.values(arm.setup.files).map((source) => filesBelow(path.resolve(experiment.dir, source)))))
  const skillFiles = await checkSkills(experiment, tasks)
  const documentFiles = preregistrationDocument(experiment)
  const files = [...new Set([...tasks.flatMap((task) => task.files), ...armFiles.flat(), ...skillFiles, ...documentFiles])]
  const manifest = await buildSpecManifest(spec, experiment.root, files)
  const plan = planRuns(
    tasks.map((task) => ({ id: task.id, arms: armsForTask(experiment, task) })),
    spec.seeds,
    spec.orderSeed,
  )
  return {
    experiment,
    tasks,
    manifest,
    specSha256: specSha256(manifest),
    plan,
    changeLog: spec.preregistration?.changes ?? [],
    contamination: checkContamination(tasks, spec.trainingCutoff),
  }
}

/** The pre-registration document the experiment names (its bytes go into the spec hash); a missing one is a `SpecError`. */
function preregistrationDocument(experiment: LoadedExperiment): string[] {
  const document = experiment.spec.preregistration?.document
  if (document === undefined) return []
  const file = path.resolve(experiment.dir, document)
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new SpecError(
      `${path.relative(experiment.root, experiment.file)}: field preregistration.document: ${path.relative(experiment.root, file)} is not a file ` +
        "(the path is relative to the experiment file's folder). Commit the pre-registration document before the first run.",
    )
  }
  return [file]
}

/** Loads an experiment file and prepares it. */
export async function prepareExperiment(location: ExperimentLocation): Promise<PreparedExperiment> {
  return prepareLoadedExperiment(await loadExperiment(location))
}

/** The UTC day the last of these runs finished (`YYYY-MM-DD`), or null when none says. */
export function lastRunDate(records: readonly RecordedRun[]): string | null {
  const times = records.map((record) => record.finishedAt ?? record.startedAt).filter((time): time is string => typeof time === 'string')
  if (times.length === 0) return null
  return new Date(Math.max(...times.map((time) => Date.parse(time)))).toISOString().slice(0, 10)
}

/**
 * The resume check, before any run: every recorded run must belong to this
 * experiment, and to its current spec or to a spec spec.json keeps. Once a
 * run is recorded, a changed spec needs a new change-log entry dated on or
 * after the last recorded run, and no recorded entry may be edited or
 * deleted (`checkChangeLog`); otherwise the experiment stops with an error
 * naming what changed. Nothing recorded is touched.
 */
export function checkRecordedRuns(prepared: PreparedExperiment, records: readonly RecordedRun[]): void {
  const { experiment } = prepared
  const runsFile = path.relative(experiment.root, runsFilePath(experiment.outDir))
  const specFile = path.relative(experiment.root, specFilePath(experiment.outDir))
  const foreign = records.find((record) => record.experiment !== experiment.spec.name)
  if (foreign !== undefined) {
    throw new SpecError(`${runsFile} holds runs of experiment "${foreign.experiment}", not "${experiment.spec.name}". Give each experiment its own output folder.`)
  }
  if (records.length === 0) return
  const recorded = readRecordedSpec(experiment.outDir)
  const known = new Set([prepared.specSha256, ...knownSpecHashes(recorded)])
  const unknown = records.filter((record) => !known.has(record.specSha256))
  if (unknown.length > 0) {
    const oldHash = unknown[0]!.specSha256
    throw new SpecError(
      `the spec of experiment "${experiment.spec.name}" changed since ${unknown.length} of its ${records.length} recorded runs ` +
        `(recorded under ${oldHash.slice(0, 12)}, now ${prepared.specSha256.slice(0, 12)}), and the manifest of spec ${oldHash.slice(0, 12)} is not in ${specFile}, ` +
        'so what changed cannot be named. Restore the spec to resume, or start a new experiment (new name or output folder).',
    )
  }
  const changed = recorded !== undefined && recorded.specSha256 !== prepared.specSha256
  checkChangeLog({
    experiment: experiment.spec.name,
    file: path.relative(experiment.root, experiment.file),
    recordedIn: specFile,
    recorded: recordedChangeLog(recorded),
    current: prepared.changeLog,
    recordedRuns: records.length,
    lastRunDate: lastRunDate(records),
    specChanges: changed ? describeSpecChanges(recorded.manifest, prepared.manifest) : null,
    hashes: { recorded: recorded?.specSha256 ?? prepared.specSha256, current: prepared.specSha256 },
  })
}

/** The runs recorded under the current spec: only these count for the plan, the resume and the analysis. */
export function currentSpecRuns(prepared: PreparedExperiment, records: readonly RecordedRun[]): RecordedRun[] {
  return records.filter((record) => record.specSha256 === prepared.specSha256)
}
