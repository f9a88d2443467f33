import { execa } from 'execa'
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
  /** Turns the command into the one to start (the run's sandbox wraps it); absent: run as it is. */
  readonly wrap?: (command: { file: string; args: string[]; cwd: string; env: Record<string, string> }) => Promise<{ file: string; args: string[]; cwd: string; env: Record<string, string> }>
}

/** Applies the solution in `cwd`; never throws for a failing script or patch (the caller decides what that means). */
export async function applyReferenceSolution(solution: ReferenceSolution, options: ApplySolutionOptions): Promise<SolutionRun> {
  const [file, args] = solution.kind === 'script' ? ['bash', [solution.path]] : ['git', ['apply', '--whitespace=nowarn', solution.path]]
  const command =
    options.wrap === undefined
      ? { file, args, cwd: options.cwd, env: options.env }
      : await options.wrap({ file: file === 'bash' ? '/bin/bash' : '/usr/bin/git', args, cwd: options.cwd, env: { ...(options.env ?? {}) } })
  const result = await execa(command.file, command.args, {
    cwd: command.cwd,
    ...(command.env === undefined ? {} : { env: { ...command.env }, extendEnv: false }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
    reject: false,
    all: true,
  })
  return { exitCode: result.exitCode, timedOut: result.timedOut, output: String(result.all ?? '') }
}
