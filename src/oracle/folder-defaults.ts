import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import picomatch from 'picomatch/posix.js'
import { isolatedSandbox } from '../sandbox/index.ts'
import { applyReferenceSolution } from '../tasks/solution.ts'
import { RUNNER_CONFIGURATION_GLOBS } from '../tasks/test-paths.ts'
import type { FolderTask } from '../tasks/task.ts'
import { copyTreeInside } from '../workspace/inside.ts'
import type { OracleOptions } from './judgement.ts'

/**
 * A folder task's safe defaults: what of the agent's workspace never reaches
 * the copy `verify.sh` runs on, whatever the task's author declared.
 */

/**
 * Interpreter, package-manager and test-runner configuration (the same
 * globs as in test infrastructure, {@link RUNNER_CONFIGURATION_GLOBS}) and
 * installed packages: on the oracle's copy these are always as `starting/` has them (an added one
 * removed, a changed one put back), so an `.npmrc` with `node-options` or
 * `script-shell`, a `sitecustomize.py` or a planted `node_modules/` decides
 * nothing about how `verify.sh`'s commands start.
 */
export const PLANTED_CONFIGURATION_GLOBS: readonly string[] = [...RUNNER_CONFIGURATION_GLOBS, '**/node_modules/**']

/**
 * Code: files with these extensions (the languages the example and skills
 * tasks use, and their relatives) are what a fix changes. Every other file of
 * `starting/` (data, configuration, `package.json`, documentation) that the
 * reference solution leaves unchanged is protected when the task declares no
 * `protect` of its own.
 */
export const CODE_EXTENSIONS: readonly string[] = [
  '.js',
  '.mjs',
  '.cjs',
  '.jsx',
  '.ts',
  '.mts',
  '.cts',
  '.tsx',
  '.py',
  '.sh',
  '.rb',
  '.go',
  '.rs',
  '.java',
  '.c',
  '.h',
  '.cc',
  '.cpp',
]

async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort()
}

/** Files of `starting/` the reference solution changes or removes, applied to a scratch copy (in the oracle's sandbox when it has one). */
async function changedBySolution(task: FolderTask, options: OracleOptions): Promise<Set<string>> {
  if (task.solution === null) return new Set()
  const copy = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-solution-'))
  try {
    await copyTreeInside(task.startingDir, copy)
    const readOnly = [...(options.sandbox?.readOnly ?? []), path.dirname(task.solution.path)]
    const result = await applyReferenceSolution(task.solution, {
      cwd: copy,
      env: { PATH: options.toolchain?.path ?? process.env.PATH ?? '/usr/bin:/bin', HOME: copy, LANG: 'C.UTF-8' },
      timeoutMs: options.timeoutMs,
      ...(options.sandbox === undefined ? {} : { sandbox: isolatedSandbox({ writable: [copy], readOnly }), network: false }),
    })
    // A failing solution tells nothing of what the fix changes: every non-code file stays protected.
    if (result.exitCode !== 0) return new Set()
    const changed = new Set<string>()
    for (const file of await filesOf(task.startingDir)) {
      const after = await readFile(path.join(copy, file)).catch(() => null)
      if (after === null || !after.equals(await readFile(path.join(task.startingDir, file)))) changed.add(file)
    }
    return changed
  } finally {
    await rm(copy, { recursive: true, force: true })
  }
}

/** Per process: each task's default protected files (the reference solution runs once per task, not once per run). */
const defaults = new Map<string, Promise<string[]>>()

/**
 * The files of `starting/` the oracle restores before `verify.sh` runs: the
 * task's own `protect` globs when it declares them; otherwise every non-code
 * file (by {@link CODE_EXTENSIONS}) the reference solution leaves unchanged
 * (all non-code files when it has none or it fails), less the task's
 * `editable` globs. Returned as globs (the default's paths escaped).
 */
export function protectedPaths(task: FolderTask, options: OracleOptions): Promise<string[]> {
  if (task.metadata.protect.length > 0) return Promise.resolve([...task.metadata.protect])
  const key = `${task.startingDir}\0${task.solution?.path ?? ''}`
  let found = defaults.get(key)
  if (found === undefined) {
    found = (async () => {
      const changed = await changedBySolution(task, options)
      const editable = task.metadata.editable.length === 0 ? () => false : picomatch([...task.metadata.editable], { dot: true })
      return (await filesOf(task.startingDir))
        .filter((file) => !CODE_EXTENSIONS.includes(path.extname(file)) && !changed.has(file) && !editable(file))
        .map((file) => file.replace(/[*?[\]{}()!+@\\]/g, '\\$&'))
    })()
    defaults.set(key, found)
  }
  return found
}
