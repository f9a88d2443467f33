import { lstat, readdir } from 'node:fs/promises'
import path from 'node:path'
import { lstatInside, readFileInside, readLinkInside } from './inside.ts'
import { sha256 } from '../shared/sha256.ts'

/**
 * The agent's changes, read from the files themselves, never by running git
 * in the workspace (its `.git/config` is the agent's: an fsmonitor hook, a
 * clean filter or an external diff program would run or lie inside the
 * harness). For an overlay workspace the candidates are what the upper layer
 * holds: regular files and links (added or changed), whiteouts (deleted), and
 * directories that hide their lower contents (opaque: found by looking for a
 * lower entry in the merged tree). Each candidate's state in the merged tree
 * is compared with its state after arm setup. `.git/` is never a change.
 *
 * A path the agent replaced with a link, a file or a whiteout is one change
 * (the path itself), never the lower files below it; nothing here follows a
 * link the agent left (every component is checked: `inside.ts`).
 */

/** A path's state: what the oracle and the diff need to know (`other`: a FIFO, socket or device, which the oracle's copy never carries). */
export type PathState =
  | { readonly kind: 'file'; readonly executable: boolean; readonly sha256: string }
  | { readonly kind: 'link'; readonly target: string }
  | { readonly kind: 'directory' }
  | { readonly kind: 'other' }
  | null

/** Where a workspace's trees are, for reading changes. */
export interface WorkspaceTrees {
  /** The merged tree (what the agent sees), as the harness reaches it. */
  readonly merged: string
  /** The base the workspace was made from (the template). */
  readonly lower: string
  /** The overlay's upper layer; undefined for a plain copy (then every path of both trees is a candidate). */
  readonly upper?: string
}

/** Paths never counted as changes: git's own folder at the workspace root. */
export function ignoredPath(relative: string): boolean {
  return relative === '.git' || relative.startsWith('.git/')
}

/** The state of `root/relative`, following no links (a path behind a link or a file is not there: null). */
export async function pathState(root: string, relative: string): Promise<PathState> {
  const info = await lstatInside(root, relative)
  if (info === null) return null
  if (info.isDirectory()) return { kind: 'directory' }
  if (info.isSymbolicLink()) return { kind: 'link', target: (await readLinkInside(root, relative)) ?? '' }
  if (info.isCharacterDevice() && info.rdev === 0) return null
  if (!info.isFile()) return { kind: 'other' }
  return { kind: 'file', executable: (info.mode & 0o111) !== 0, sha256: sha256((await readFileInside(root, relative)) ?? Buffer.alloc(0)) }
}

/** Whether two states are the same content (and mode). */
export function sameState(a: PathState, b: PathState): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

const join = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`)

/** Every non-directory below `root/relative`, relative to root. */
async function filesBelow(root: string, relative: string, into: Set<string>): Promise<void> {
  const entries = await readdir(path.join(root, relative), { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    const child = join(relative, entry.name)
    if (ignoredPath(child)) continue
    if (entry.isDirectory()) await filesBelow(root, child, into)
    else into.add(child)
  }
}

/** The candidate paths of an overlay: everything the upper layer holds or hides. */
async function overlayCandidates(trees: Required<WorkspaceTrees>, relative: string, lowerVisible: boolean, into: Set<string>): Promise<void> {
  const entries = await readdir(path.join(trees.upper, relative), { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    const child = join(relative, entry.name)
    if (ignoredPath(child)) continue
    const lower = lowerVisible ? await lstat(path.join(trees.lower, child)).catch(() => null) : null
    const lowerDir = lower?.isDirectory() === true
    if (!entry.isDirectory()) {
      // A whiteout, a file or a link over a lower folder is one change: the path itself.
      into.add(child)
      continue
    }
    // A folder over a lower file or link replaces it: the path is a change, and what the folder holds.
    if (lower !== null && !lowerDir) into.add(child)
    let visible = lowerDir
    if (lowerDir) {
      const upperNames = new Set(await readdir(path.join(trees.upper, child)))
      const probe = (await readdir(path.join(trees.lower, child))).find((name) => !upperNames.has(name))
      // An opaque folder hides every lower entry: one lower name missing from the merged tree shows it.
      if (probe !== undefined && (await lstatInside(trees.merged, `${child}/${probe}`)) === null) {
        visible = false
        await filesBelow(trees.lower, child, into)
      }
    }
    await overlayCandidates(trees, child, visible, into)
  }
}

/** The paths that may differ from the base: the overlay's upper layer, or (a plain copy) every file of both trees. */
export async function candidatePaths(trees: WorkspaceTrees): Promise<Set<string>> {
  const into = new Set<string>()
  if (trees.upper === undefined) {
    await filesBelow(trees.merged, '', into)
    await filesBelow(trees.lower, '', into)
  } else {
    await overlayCandidates(trees as Required<WorkspaceTrees>, '', true, into)
  }
  return into
}

/** A path's state and, for a file, its bytes (kept so the diff has the base even after the agent overwrote it). */
export interface Snapshot {
  readonly states: ReadonlyMap<string, { readonly state: PathState; readonly content?: Buffer }>
}

/** Records the candidates' merged states now (after arm setup): the base the agent's changes are measured against. */
export async function snapshotTrees(trees: WorkspaceTrees): Promise<Snapshot> {
  const states = new Map<string, { state: PathState; content?: Buffer }>()
  for (const file of await candidatePaths(trees)) {
    const state = await pathState(trees.merged, file)
    states.set(file, state?.kind === 'file' ? { state, content: (await readFileInside(trees.merged, file)) ?? Buffer.alloc(0) } : { state })
  }
  return { states }
}

/** One changed path: its state before (after arm setup) and now. */
export interface Change {
  readonly path: string
  readonly before: PathState
  readonly after: PathState
}

/** The base state of `file`: the snapshot's, else the lower tree's (untouched by setup). */
export async function baseState(trees: WorkspaceTrees, snapshot: Snapshot, file: string): Promise<PathState> {
  const recorded = snapshot.states.get(file)
  return recorded === undefined ? pathState(trees.lower, file) : recorded.state
}

/** The base bytes of a file (null when it was not a file). */
export async function baseContent(trees: WorkspaceTrees, snapshot: Snapshot, file: string): Promise<Buffer | null> {
  const recorded = snapshot.states.get(file)
  if (recorded !== undefined) return recorded.content ?? null
  return readFileInside(trees.lower, file)
}

/**
 * Every path whose state differs from the snapshot's, sorted. A path below a
 * change that is no longer a folder (a link, a file, deleted) is part of that
 * change, not one of its own.
 */
export async function readChanges(trees: WorkspaceTrees, snapshot: Snapshot): Promise<Change[]> {
  const paths = new Set([...snapshot.states.keys(), ...(await candidatePaths(trees))])
  const changes: Change[] = []
  const replaced: string[] = []
  for (const file of [...paths].sort()) {
    if (replaced.some((dir) => file.startsWith(`${dir}/`))) continue
    const [before, after] = await Promise.all([baseState(trees, snapshot, file), pathState(trees.merged, file)])
    if (sameState(before, after)) continue
    changes.push({ path: file, before, after })
    if (after?.kind !== 'directory') replaced.push(file)
  }
  return changes
}
