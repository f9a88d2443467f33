import path from 'node:path'
import type { TestProjectInlineConfiguration } from 'vitest/config'
import { loadExperiment } from '../experiment/load.ts'
import { unsupportedNodeMessage } from '../version.ts'
import { listTaskDirs } from '../tasks/load.ts'
import { PROVIDE_KEY, type ExperimentProvide } from './meta.ts'
import { caseTimeoutMs, taskOutcomePlugin } from './plugin.ts'

let nextGroupOrder = 1

/** Options of `experimentProject`. */
export interface ExperimentProjectOptions {
  /** The export holding the experiment (default: the default export). */
  readonly exportName?: string
  /** The project root (default: the current directory). */
  readonly root?: string
}

/**
 * A Vitest project for the experiment in `file`: one test module per task
 * folder, one case per (task, arm, seed). Use it in `vitest.config.ts`:
 * `projects: [await experimentProject('tasks/pilot/experiment.ts')]`, then
 * `npx vitest run --project pilot`.
 */
export async function experimentProject(file: string, options: ExperimentProjectOptions = {}): Promise<TestProjectInlineConfiguration> {
  // Before anything else: on an unsupported Node the experiment would start and fail part-way.
  const unsupported = unsupportedNodeMessage()
  if (unsupported !== null) {
    process.stderr.write(`${unsupported}\n`)
    process.exit(1)
  }
  const experiment = await loadExperiment({ file, ...options })
  const { spec } = experiment
  const dirs = await listTaskDirs(experiment.tasksDir).catch(() => [] as string[])
  const selected = (spec.tasks.include ?? dirs.map((dir) => path.basename(dir))).slice(0, spec.tasks.first)
  const provide: ExperimentProvide = {
    name: spec.name,
    file: experiment.file,
    exportName: experiment.exportName,
    root: experiment.root,
    outDir: experiment.outDir,
  }
  const timeout = caseTimeoutMs(experiment)
  return {
    plugins: [taskOutcomePlugin(experiment)],
    test: {
      name: spec.name,
      root: experiment.root,
      include: selected.map((id: string) => path.relative(experiment.root, path.join(experiment.tasksDir, id, 'metadata.json'))),
      // Threads forbid process.chdir, and agents need real child processes.
      pool: 'forks',
      maxWorkers: spec.maxWorkers,
      fileParallelism: true,
      // Never Vitest's blanket retry: retrying unsolved runs until they pass biases the result.
      retry: 0,
      // Each experiment its own group: Vitest runs groups one after another, and refuses projects
      // with different maxWorkers in one group.
      sequence: { shuffle: false, concurrent: false, groupOrder: nextGroupOrder++ },
      testTimeout: timeout,
      hookTimeout: timeout,
      provide: { [PROVIDE_KEY]: provide },
    },
  }
}
