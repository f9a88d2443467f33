import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import { DEFAULT_LIMITS, mountOverlay, mountPlainCopy, type MountedOverlay } from '../sandbox/index.ts'
import { removeTree } from '../workspace/inside.ts'
import { checkedTemplate, copyTemplate, parentTemplate } from '../workspace/template.ts'

/**
 * The oracle's clean tree of a task's parent commit, which gets the agent's
 * taken changes and the fix's tests. Sandboxed, it is an overlay: the
 * template read-only below, an upper layer on a tmpfs of its own for
 * everything the oracle writes, so making it costs a mount whatever the
 * repository's size, and nothing it holds touches the disk. Without a
 * sandbox (`sandbox: 'none'`), or where no overlay can be mounted, it is a
 * copy of the template on disk, as before; sandboxed where no overlay can be
 * mounted, a copy on a tmpfs of its own (with the tests' HOME beside it), so
 * what the tests write never reaches the host's disk either way.
 */
export interface OracleCopy {
  /** Where the harness reads and writes the tree (for an overlay, through its holder's namespace). */
  readonly dir: string
  /** Where the test command sees it (an overlay's mount point; for a copy, `dir`). */
  readonly cwd: string
  /** The checked template the tree was made from (the overlay's lower layer): read-only. */
  readonly template: string
  /** The mounted overlay (or plain copy on a tmpfs) the test command enters; undefined for a copy on disk. */
  readonly overlay: MountedOverlay | undefined
  /** Unmounts (the upper layer goes with its tmpfs) and removes what is left. */
  dispose(): Promise<void>
}

/** How the oracle's copy is made: an overlay (sandboxed oracles) or a copy on disk. */
export type OracleCopyKind = 'overlay' | 'copy'

let warned = false

async function mountedOver(template: string, root: string, target: string, diskMb: number): Promise<MountedOverlay | undefined> {
  try {
    const layers = { lower: [template], upper: path.join(root, 'layers', 'upper'), work: path.join(root, 'layers', 'work'), target }
    return await mountOverlay(layers, { diskMb })
  } catch (error) {
    if (!warned) process.stderr.write(`task-outcome: ${(error as Error).message}; the oracle copies the template instead (still sandboxed)\n`)
    warned = true
    await rm(path.join(root, 'layers'), { recursive: true, force: true })
    return undefined
  }
}

async function overlayCopy(template: string, scratchDir: string, label: string, diskMb: number, plain = false): Promise<OracleCopy | undefined> {
  const root = await mkdtemp(path.join(scratchDir, `${label}-`))
  const target = path.join(root, 'tree')
  let overlay: MountedOverlay | undefined
  try {
    overlay = plain
      ? await mountPlainCopy({ upper: path.join(root, 'layers', 'upper'), work: path.join(root, 'layers', 'work'), target }, { diskMb })
      : await mountedOver(template, root, target, diskMb)
    if (plain) await copyTemplate(template, overlay!.hostPath)
  } catch (error) {
    await overlay?.release()
    await rm(root, { recursive: true, force: true })
    throw error
  }
  if (overlay === undefined) {
    await rm(root, { recursive: true, force: true })
    return undefined
  }
  return {
    dir: overlay.hostPath,
    cwd: target,
    template,
    overlay,
    async dispose() {
      await overlay.release()
      await removeTree(root)
    },
  }
}

async function diskCopy(template: string, scratchDir: string, label: string): Promise<OracleCopy> {
  const dir = await mkdtemp(path.join(scratchDir, `${label}-`))
  await copyTemplate(template, dir)
  return { dir, cwd: dir, template, overlay: undefined, dispose: () => removeTree(dir) }
}

/**
 * The oracle's clean tree of (`repo`, `base`) in `scratchDir`. An overlay is
 * mounted while the template's seal is checked (as a workspace is: two
 * processes, two cores) when this process checked the template before, and
 * mounted again over `parentTemplate` (checked, or exported anew) when the
 * seal moved. `TASK_OUTCOME_OVERLAY=off` makes it a copy (on a tmpfs of
 * `diskMb`, the experiment's disk limit, as the overlay's upper layer is).
 *
 * `watchedTemplate`: the folder whose seal the run's task guard checks after
 * the oracle (`OracleOptions.watchedTemplate`). When it is this template,
 * checked by this process and still the same folder (one `lstat`), the
 * overlay is mounted without walking the seal: whatever wrote to the
 * template before or while the oracle ran moves the guard's seal, and its
 * look after the oracle stops the experiment as `tampered`.
 */
export async function oracleCopy(
  repo: string,
  base: string,
  scratchDir: string,
  label: string,
  kind: OracleCopyKind,
  diskMb: number = DEFAULT_LIMITS.diskMb,
  watchedTemplate?: string,
): Promise<OracleCopy> {
  await mkdir(scratchDir, { recursive: true })
  if (kind === 'copy') return diskCopy(await parentTemplate(repo, base), scratchDir, label)
  if (process.env.TASK_OUTCOME_OVERLAY === 'off') return (await overlayCopy(await parentTemplate(repo, base), scratchDir, label, diskMb, true))!
  const checked = await checkedTemplate(repo, base)
  if (checked !== undefined && checked.dir === watchedTemplate) {
    const copy = await overlayCopy(checked.dir, scratchDir, label, diskMb)
    if (copy !== undefined) return copy
  } else if (checked !== undefined) {
    const [copy, unchanged] = await Promise.allSettled([overlayCopy(checked.dir, scratchDir, label, diskMb), checked.stillChecked()])
    if (unchanged.status === 'fulfilled' && unchanged.value) {
      if (copy.status === 'rejected') throw copy.reason
      if (copy.value !== undefined) return copy.value
    } else if (copy.status === 'fulfilled') await copy.value?.dispose()
  }
  const template = await parentTemplate(repo, base)
  return (await overlayCopy(template, scratchDir, label, diskMb)) ?? (await overlayCopy(template, scratchDir, label, diskMb, true))!
}
