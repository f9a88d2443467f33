import path from 'node:path'
import { HarnessFailure, SpecError } from '../../errors.ts'
import { applyReferenceSolution, referenceSolution } from '../../tasks/solution.ts'
import type { Agent, AgentRunRequest, AgentRunResult } from '../types.ts'
import { builtinResult, builtinVersion } from './result.ts'

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
      throw new SpecError(`${request.task.id}: no reference solution; add solution/solve.sh or one solution/*.patch (git-fix: solution/gold.patch)`)
    }
    const sandbox = request.sandbox
    const result = await applyReferenceSolution(solution, {
      cwd: request.workspace,
      env: request.env,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      // Sandboxed, the solution is applied inside the run's sandbox like any agent's edit, seeing its own folder read-only.
      ...(sandbox === undefined ? {} : { sandbox, network: false, readOnly: [path.dirname(solution.path)] }),
    })
    if (result.timedOut) return builtinResult('timeout', started)
    if (result.exitCode !== 0) {
      throw new HarnessFailure('crash', `${request.task.id}: the reference solution ${solution.path} failed (exit ${result.exitCode}): ${result.output.slice(-2000)}`, {
        retryable: false,
      })
    }
    return builtinResult('completed', started)
  }
}
