import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import { mountOverlay, mountPlainCopy, type MountedOverlay } from '../sandbox/index.ts'
import type { Task } from '../tasks/task.ts'
import { readChanges, snapshotTrees, type Change, type Snapshot, type WorkspaceTrees } from './changes.ts'
import { diffChanges } from './diff.ts'
import { removeTree } from './inside.ts'
import { copyTemplate } from './template.ts'
import type { Workspace } from './workspace.ts'

/** How to make a workspace from a template. */
export interface LayeredWorkspaceOptions {
  /** An overlay mounted in a namespace of its own (sandboxed runs), or a plain copy (`sandbox: 'none'`). */
  readonly overlay: boolean
  /**
   * The most the run may write into its workspace and HOME, in MiB (`sandbox.limits.diskMb`): an overlay's upper
   * layer, or where none can be mounted the plain copy itself, is on a tmpfs of this size with HOME beside it.
   */
  readonly diskMb?: number
}

let warned = false

/**
 * The overlay, or undefined where this machine cannot mount one without
 * privileges (kernels before 5.11, some file systems), or where
 * `TASK_OUTCOME_OVERLAY=off` says not to try: the workspace is then a plain
 * copy, still bound into the sandbox (slower to make, as isolated).
 */
async function overlayOrNothing(template: string, root: string, target: string, diskMb: number | undefined): Promise<MountedOverlay | undefined> {
  if (process.env.TASK_OUTCOME_OVERLAY === 'off') return undefined
  try {
    const layers = { lower: [template], upper: path.join(root, 'layers', 'upper'), work: path.join(root, 'layers', 'work'), target }
    return await mountOverlay(layers, diskMb === undefined ? {} : { diskMb })
  } catch (error) {
    if (!warned) process.stderr.write(`task-outcome: ${(error as Error).message}; workspaces are plain copies of the template instead (still sandboxed)\n`)
    warned = true
    await rm(path.join(root, 'layers'), { recursive: true, force: true })
    await rm(target, { recursive: true, force: true })
    return undefined
  }
}

/**
 * A workspace over a template: an overlay (upper layer `layers/upper/`, mount point
 * `ws/`) or a copy (`ws/`), in a fresh folder under `parentDir`.
 */
export async function layeredWorkspace(task: Task, template: string, parentDir: string, options: LayeredWorkspaceOptions): Promise<Workspace> {
  const root = await mkdtemp(path.join(parentDir, `${task.id}-`))
  const target = path.join(root, 'ws')
  let overlay: MountedOverlay | undefined
  try {
    overlay = options.overlay ? await overlayOrNothing(template, root, target, options.diskMb) : undefined
    const layered = overlay !== undefined
    if (overlay === undefined && options.overlay && options.diskMb !== undefined) {
      // Sandboxed without an overlay: the copy on the run's tmpfs, so the disk limit holds for it and HOME too.
      overlay = await mountPlainCopy({ upper: path.join(root, 'layers', 'upper'), work: path.join(root, 'layers', 'work'), target }, { diskMb: options.diskMb })
      await copyTemplate(template, overlay.hostPath)
    } else if (overlay === undefined) {
      await mkdir(target)
      await copyTemplate(template, target)
    }
    const dir = overlay?.hostPath ?? target
    const trees: WorkspaceTrees = { merged: dir, lower: template, ...(layered ? { upper: overlay!.upperOnHost } : {}) }
    let baseline: Snapshot | undefined
    const snapshot = async () => (baseline ??= await snapshotTrees(trees))
    const changes = async (): Promise<Change[]> => readChanges(trees, await snapshot())
    return {
      dir,
      agentDir: target,
      template,
      task,
      overlay,
      async snapshot() {
        baseline = await snapshotTrees(trees)
      },
      async changedFiles() {
        return (await changes()).map((change) => change.path)
      },
      async diff() {
        return diffChanges(trees, await snapshot(), await changes())
      },
      async readChanges() {
        const read = await changes()
        return { files: read.map((change) => change.path), diff: async () => diffChanges(trees, await snapshot(), read) }
      },
      async dispose() {
        await overlay?.release()
        await removeTree(root)
      },
    }
  } catch (error) {
    await overlay?.release()
    await rm(root, { recursive: true, force: true })
    throw error
  }
}
