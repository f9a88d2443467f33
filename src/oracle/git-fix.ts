import type { GitFixTask } from '../tasks/task.ts'
import type { Workspace } from '../workspace/workspace.ts'
import type { OracleOptions, OracleVerdict } from './verdict.ts'

/**
 * A git-fix task's oracle: a clean copy of the parent, plus the agent's changes
 * to non-test files, plus the fix's test files; solved when every FAIL_TO_PASS
 * and PASS_TO_PASS test passes.
 */
export async function runFixTests(task: GitFixTask, _workspace: Workspace, _options: OracleOptions): Promise<OracleVerdict> {
  throw new Error(`${task.id}: the git-fix oracle is not built yet (issue 4)`)
}
