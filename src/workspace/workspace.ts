import type { Task } from '../tasks/task.ts'

/**
 * A run's isolated working copy: a one-commit git repository the agent works
 * in. After arm setup the harness snapshots it, so the agent's changes (and
 * only the agent's) can be listed and diffed when it stops.
 */
export interface Workspace {
  /** Absolute path: the agent's working directory. */
  readonly dir: string
  readonly task: Task
  /** Records the current contents (after arm setup) as the baseline for `changedFiles` and `diff`. */
  snapshot(): Promise<void>
  /** Files changed since the snapshot (added, modified, deleted), relative, sorted. Ignored files are not listed. */
  changedFiles(): Promise<string[]>
  /** The unified diff since the snapshot (binary-safe). */
  diff(): Promise<string>
  /** Removes the workspace from disk. */
  dispose(): Promise<void>
}
