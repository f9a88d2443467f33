import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa, type ResultPromise } from 'execa'

/** The repository root (where vitest and the fixture config live). */
export const repoRoot = path.resolve(import.meta.dirname, '../..')

/** Vitest's command-line entry: run with `node` directly, so the spawned pid is Vitest's main process. */
export const VITEST_BIN = path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs')

/** A folder task for a fixture: files of `starting/`, the verify script, an optional solve script. */
export interface FixtureTask {
  readonly id: string
  readonly prompt?: string
  readonly starting: Record<string, string>
  readonly verify: string
  readonly solve?: string
  readonly metadata?: Record<string, unknown>
}

/** Writes folder tasks under `setDir`, executable scripts included. */
export async function writeFolderTasks(setDir: string, tasks: readonly FixtureTask[]): Promise<void> {
  for (const task of tasks) {
    const dir = path.join(setDir, task.id)
    const [, number, slug] = /^(\d+)-(.*)$/.exec(task.id)!
    await mkdir(path.join(dir, 'starting'), { recursive: true })
    await writeFile(
      path.join(dir, 'metadata.json'),
      JSON.stringify({ id: number, slug, kind: 'folder', target_skill: 'none', irrelevant_skill: 'none', category: 'fixture', difficulty: 'easy', ...task.metadata }, null, 2),
    )
    await writeFile(path.join(dir, 'task.md'), task.prompt ?? `Fix ${slug}.\n`)
    for (const [name, content] of Object.entries(task.starting)) {
      await mkdir(path.dirname(path.join(dir, 'starting', name)), { recursive: true })
      await writeFile(path.join(dir, 'starting', name), content)
    }
    await writeFile(path.join(dir, 'verify.sh'), `#!/usr/bin/env bash\n${task.verify}\n`)
    await chmod(path.join(dir, 'verify.sh'), 0o755)
    if (task.solve !== undefined) {
      await mkdir(path.join(dir, 'solution'), { recursive: true })
      await writeFile(path.join(dir, 'solution', 'solve.sh'), `#!/usr/bin/env bash\nset -eu\n${task.solve}\n`)
      await chmod(path.join(dir, 'solution', 'solve.sh'), 0o755)
    }
  }
}

/** A throwaway project root holding `tasks/fixture/` and an experiment over it. */
export interface ExperimentFixture {
  readonly root: string
  readonly setDir: string
  readonly experimentFile: string
  readonly outDir: string
  /**
   * Runs `vitest run` on the fixture's experiment project with extra CLI arguments (its pid is Vitest's main process, in a
   * session of its own), with this test's Node or the `node` binary given.
   */
  vitest(args?: readonly string[], options?: { env?: Record<string, string>; node?: string }): ResultPromise<{ reject: false; all: true }>
  /** The lines of runs.jsonl, parsed. */
  runs(): Promise<Array<Record<string, unknown>>>
  /** The raw text of runs.jsonl ('' when absent). */
  runsText(): Promise<string>
  /** Rewrites the experiment file with other options. */
  writeExperiment(options: Record<string, unknown>): Promise<void>
  /** Writes an executable bash script, run with `set -euo pipefail`, beside the experiment file (a `command` agent's `bin: './<name>'`). */
  writeScript(name: string, body: string): Promise<void>
  /** Writes an executable script of these lines beside the experiment file, run by `interpreter` (as is: no `set -e`); returns its path. */
  writeAgent(name: string, lines: readonly string[], interpreter?: 'bash' | 'node'): Promise<string>
}

/** The three tasks most fixtures use: gold solves each, noop none. */
export function simpleTasks(count = 3, solveDelaySeconds = 0): FixtureTask[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `00${i + 1}-task-${i + 1}`,
    starting: { 'value.txt': 'wrong\n' },
    verify: 'grep -qx right value.txt',
    solve: `${solveDelaySeconds > 0 ? `sleep ${solveDelaySeconds}\n` : ''}echo right > value.txt`,
  }))
}

/** Makes a fixture: tasks under a temp root and an experiment file over them (gold vs noop by default). */
export async function createExperimentFixture(tasks: readonly FixtureTask[], experiment: Record<string, unknown> = {}): Promise<ExperimentFixture> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-fixture-'))
  const setDir = path.join(root, 'tasks', 'fixture')
  await mkdir(setDir, { recursive: true })
  await writeFolderTasks(setDir, tasks)
  const experimentFile = path.join(setDir, 'experiment.ts')
  const outDir = path.join(root, 'out')
  const writeExperiment = async (options: Record<string, unknown>) => {
    const spec = {
      name: 'fixture',
      stage: 'example',
      agent: { kind: 'noop' },
      arms: { noop: {}, gold: { agent: { kind: 'gold' } } },
      control: 'noop',
      seeds: 2,
      budgetUsd: 0.5,
      timeoutSeconds: 30,
      oracleTimeoutSeconds: 30,
      retries: { attempts: 1, backoffSeconds: 0 },
      output: outDir,
      maxWorkers: 1,
      ...options,
    }
    await writeFile(experimentFile, `export default ${JSON.stringify(spec, null, 2)}\n`)
  }
  await writeExperiment(experiment)
  const writeAgent = async (name: string, lines: readonly string[], interpreter: 'bash' | 'node' = 'bash') => {
    const file = path.join(setDir, name)
    await writeFile(file, [`#!/usr/bin/env ${interpreter}`, ...lines, ''].join('\n'))
    await chmod(file, 0o755)
    return file
  }
  const runsFile = path.join(outDir, 'runs.jsonl')
  const runsText = () => readFile(runsFile, 'utf8').catch(() => '')
  return {
    root,
    setDir,
    experimentFile,
    outDir,
    writeExperiment,
    runsText,
    writeAgent,
    async writeScript(name, body) {
      await writeAgent(name, ['set -euo pipefail', body])
    },
    async runs() {
      return (await runsText())
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    },
    vitest(args = [], options = {}) {
      return execa(options.node ?? process.execPath, [VITEST_BIN, 'run', '--config', 'test/fixtures/experiment.config.ts', '--project', 'fixture', ...args], {
        cwd: repoRoot,
        env: { TASK_OUTCOME_EXPERIMENT: experimentFile, TASK_OUTCOME_ROOT: root, NO_COLOR: '1', CI: '1', ...options.env },
        reject: false,
        all: true,
        detached: true,
      })
    },
  }
}
