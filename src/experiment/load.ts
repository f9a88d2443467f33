import { existsSync } from 'node:fs'
import path from 'node:path'
import { SpecError } from '../errors.ts'
import { parseExperiment } from './parse.ts'
import type { Experiment } from './schema.ts'

/** An experiment with the paths it resolves against. */
export interface LoadedExperiment {
  readonly spec: Experiment
  /** Absolute path of the experiment file. */
  readonly file: string
  /** The export the experiment came from (`default` or a named export). */
  readonly exportName: string
  /** The project root: output folders are relative to it. */
  readonly root: string
  /** Absolute folder of the experiment file: task and arm paths are relative to it. */
  readonly dir: string
  /** Absolute task set folder. */
  readonly tasksDir: string
  /** Absolute output folder (`runs.jsonl`, reports, artifacts). */
  readonly outDir: string
}

/** Where an experiment lives: its file and export, and the project root. */
export interface ExperimentLocation {
  readonly file: string
  readonly exportName?: string
  readonly root?: string
}

/**
 * A TypeScript file outside an ESM package is loaded as CommonJS, and its
 * exports arrive wrapped in `default`; unwrap them so both forms read alike.
 */
function esmNamespace(namespace: Record<string, unknown>): Record<string, unknown> {
  const wrapped = namespace.default
  if (typeof wrapped !== 'object' || wrapped === null || 'arms' in wrapped) return namespace
  if (!('default' in wrapped) && !('__esModule' in wrapped)) return namespace
  const { default: _default, ...named } = namespace
  return { ...(wrapped as Record<string, unknown>), ...named }
}

/**
 * Picks the experiment out of an imported experiment module, validates it and
 * resolves its paths. Used both in Vitest's main process and in its workers.
 */
export function resolveExperiment(imported: Record<string, unknown>, location: ExperimentLocation): LoadedExperiment {
  const moduleNamespace = esmNamespace(imported)
  const root = path.resolve(location.root ?? process.cwd())
  const file = path.resolve(root, location.file)
  const exportName = location.exportName ?? 'default'
  const relative = path.relative(root, file)
  if (!(exportName in moduleNamespace) || moduleNamespace[exportName] === undefined) {
    const available = Object.keys(moduleNamespace).filter((key) => moduleNamespace[key] !== undefined)
    throw new SpecError(
      `${relative}: no export "${exportName}" (it exports ${available.length === 0 ? 'nothing' : available.join(', ')}). ` +
        `Write \`export default defineExperiment({...})\` or name the export in experimentProject().`,
    )
  }
  const spec = parseExperiment(moduleNamespace[exportName], exportName === 'default' ? relative : `${relative} (export ${exportName})`)
  const dir = path.dirname(file)
  return {
    spec,
    file,
    exportName,
    root,
    dir,
    tasksDir: path.resolve(dir, spec.tasks.dir),
    outDir: path.resolve(root, spec.output),
  }
}

/**
 * Imports an experiment file (TypeScript or JavaScript) outside Vitest's
 * workers (the CLI, the Vitest config) the way the workers do: through Vite's
 * module runner, so it is an ES module whatever the project's package type
 * (a CommonJS project's `experiment.ts` imports `task-outcome` as ESM too),
 * and packages in `node_modules` load natively.
 */
async function importExperimentFile(file: string): Promise<Record<string, unknown>> {
  const { runnerImport } = await import('vite')
  const { module } = await runnerImport<Record<string, unknown>>(file, { configFile: false, logLevel: 'error', root: path.dirname(file) })
  return module
}

/** Imports an experiment file outside Vite (CLI, Vitest config), then resolves it. */
export async function loadExperiment(location: ExperimentLocation): Promise<LoadedExperiment> {
  const root = path.resolve(location.root ?? process.cwd())
  const file = path.resolve(root, location.file)
  if (!existsSync(file)) {
    throw new SpecError(`${path.relative(root, file)}: no such experiment file. Check the path given to experimentProject().`)
  }
  const namespace = await importExperimentFile(file)
  return resolveExperiment(namespace, { ...location, root, file })
}

/** Whether a module export looks like an experiment definition (a name, and arms or skill conditions). */
function looksLikeExperiment(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'name' in value && ('arms' in value || 'skills' in value)
}

/** Loads every experiment an experiment file exports (default and named), each validated. */
export async function loadExperiments(location: Omit<ExperimentLocation, 'exportName'>): Promise<LoadedExperiment[]> {
  const root = path.resolve(location.root ?? process.cwd())
  const file = path.resolve(root, location.file)
  const namespace = esmNamespace(await importExperimentFile(file))
  return Object.keys(namespace)
    .filter((exportName) => looksLikeExperiment(namespace[exportName]))
    .map((exportName) => resolveExperiment(namespace, { file, exportName, root }))
}
