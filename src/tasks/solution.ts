import { runProcess, UNSANDBOXED_HOST, type ProcessEnvironment } from '../sandbox/index.ts'
import type { Task } from './task.ts'

/**
 * A task's reference solution, and the one way to apply it: what the `gold`
 * agent runs, what the scripted model learns its fix from, and what the demo
 * benchmark applies. A git-fix task's is `solution/gold.patch`; a folder
 * task's is `solution/solve.sh` or its one `solution/*.patch`.
 */
export interface ReferenceSolution {
  /** A script run with bash in the workspace, or a patch applied with `git apply`. */
  readonly kind: 'script' | 'patch'
  /** Absolute path of the script or patch. */
  readonly path: string
}

/** The task's reference solution, or null when it has none. */
export function referenceSolution(task: Task): ReferenceSolution | null {
  if (task.kind === 'folder') return task.solution
  return task.goldPatch === null ? null : { kind: 'patch', path: task.goldPatch }
}

/** How applying a reference solution ended. */
export interface SolutionRun {
  readonly exitCode: number | undefined
  readonly timedOut: boolean
  /** Standard output and error, interleaved. */
  readonly output: string
}

/** Where and how to apply a reference solution. */
export interface ApplySolutionOptions {
  /** The folder to change (a workspace or a scratch copy of one). */
  readonly cwd: string
  /** The process's whole environment; absent: the harness's own. */
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
  /** Where it runs (the run's sandbox); absent: on the host, UNSANDBOXED (a scratch copy the harness owns). */
  readonly sandbox?: ProcessEnvironment
  /** Inside a sandbox: more read-only paths (the solution's own folder). */
  readonly readOnly?: readonly string[]
  /** Inside a sandbox: false for no network at all. */
  readonly network?: boolean
}

/** Applies the solution in `cwd`; never throws for a failing script or patch (the caller decides what that means). */
export async function applyReferenceSolution(solution: ReferenceSolution, options: ApplySolutionOptions): Promise<SolutionRun> {
  const [file, args] = solution.kind === 'script' ? ['bash', [solution.path]] : ['git', ['apply', '--whitespace=nowarn', solution.path]]
  const sandboxed = options.sandbox !== undefined
  const result = await runProcess(
    { file: sandboxed ? (file === 'bash' ? '/bin/bash' : '/usr/bin/git') : file, args },
    {
      cwd: options.cwd,
      env: options.env ?? hostEnv(),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      sandbox: options.sandbox ?? UNSANDBOXED_HOST,
      ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
      ...(options.network === undefined ? {} : { network: options.network }),
    },
  )
  return { exitCode: result.exitCode ?? undefined, timedOut: result.timedOut, output: result.all }
}

/** The harness's own environment, for a solution applied without one given. */
function hostEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined))
}
