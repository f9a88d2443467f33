import { execa } from 'execa'
import { HarnessFailure, SpecError } from '../../errors.ts'
import type { Task } from '../../tasks/task.ts'
import type { Agent, AgentRunRequest, AgentRunResult } from '../types.ts'
import { builtinResult, builtinVersion } from './result.ts'

/** The reference solution of a task: a script to run, or a patch to apply. */
function referenceSolution(task: Task): { kind: 'script' | 'patch'; path: string } | null {
  if (task.kind === 'folder') return task.solution
  return task.goldPatch === null ? null : { kind: 'patch', path: task.goldPatch }
}

/**
 * `gold`: applies the task's reference solution (SWE-bench's gold check). With
 * `noop` it validates a task set: gold must solve every task, noop none.
 */
export class GoldAgent implements Agent {
  readonly kind = 'gold'

  async version(): Promise<string> {
    return builtinVersion(this.kind)
  }

  async run(request: AgentRunRequest): Promise<AgentRunResult> {
    const started = performance.now()
    const solution = referenceSolution(request.task)
    if (solution === null) {
      throw new SpecError(
        `${request.task.id}: no reference solution; add solution/solve.sh or one solution/*.patch (git-fix: solution/gold.patch)`,
      )
    }
    const command =
      solution.kind === 'script'
        ? execa('bash', [solution.path], { cwd: request.workspace, env: request.env, extendEnv: false, reject: false, timeout: request.timeoutMs, cancelSignal: request.signal, all: true })
        : execa('git', ['apply', '--whitespace=nowarn', solution.path], { cwd: request.workspace, env: request.env, extendEnv: false, reject: false, timeout: request.timeoutMs, cancelSignal: request.signal, all: true })
    const result = await command
    if (result.timedOut) return builtinResult('timeout', started)
    if (result.exitCode !== 0) {
      throw new HarnessFailure('crash', `${request.task.id}: the reference solution ${solution.path} failed (exit ${result.exitCode}): ${String(result.all).slice(-2000)}`, { retryable: false })
    }
    return builtinResult('completed', started)
  }
}
