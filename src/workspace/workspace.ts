import type { MountedOverlay } from '../sandbox/index.ts'
import type { Task } from '../tasks/task.ts'

/**
 * A run's isolated working copy. Sandboxed, it is an overlay of the task's
 * read-only template (the run's writes land in its own upper layer); without
 * a sandbox, a plain copy of the template. After arm setup the harness
 * snapshots it, so the agent's changes (and only the agent's) can be listed
 * and diffed when it stops, from the files themselves: git never runs with
 * the workspace's own configuration.
 */
export interface Workspace {
  /** Absolute path the harness reads and writes the workspace at (for an overlay, through its holder's namespace). */
  readonly dir: string
  /** Absolute path the agent sees as its working directory (an overlay's mount point; for a copy, `dir`). */
  readonly agentDir: string
  /** The template the workspace was made from (the overlay's lower layer): read-only, never the agent's. */
  readonly template: string
  readonly task: Task
  /** The mounted overlay, when the workspace is one: sandboxed processes enter it. */
  readonly overlay: MountedOverlay | undefined
  /** Records the current contents (after arm setup) as the baseline for `changedFiles` and `diff`. */
  snapshot(): Promise<void>
  /** Files changed since the snapshot (added, modified, deleted), relative, sorted; `.git/` is never listed. */
  changedFiles(): Promise<string[]>
  /** The unified diff since the snapshot (binary-safe), made by the harness. */
  diff(): Promise<string>
  /**
   * The changes since the snapshot read once, for everything judging needs of them: the files (as
   * `changedFiles` lists them) and their diff (as `diff` makes it) from that one read, where
   * `changedFiles` and `diff` each read the workspace anew.
   */
  readChanges(): Promise<WorkspaceChanges>
  /** Unmounts and removes the workspace. */
  dispose(): Promise<void>
}

/** The agent's changes as one read of the workspace found them (`Workspace.readChanges`). */
export interface WorkspaceChanges {
  /** Files changed since the snapshot, relative, sorted; `.git/` is never listed. */
  readonly files: readonly string[]
  /** The unified diff of these changes (the files' contents as they are when it is made). */
  diff(): Promise<string>
}
