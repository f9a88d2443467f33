import { mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { simpleGit, type SimpleGit } from 'simple-git'
import { SpecError } from '../errors.ts'

/**
 * Read access to a task's source repository (a working copy, a bare
 * repository or a git bundle), never writing to it: harvest, select and the
 * git-fix workspace templates all read commits, trees and blobs through this.
 */

/** A simple-git client for reading a repository: no user config, optional extra environment (e.g. GIT_INDEX_FILE). */
export function readerGit(dir: string, extraEnv: Readonly<Record<string, string>> = {}): SimpleGit {
  return simpleGit({
    baseDir: dir,
    // --work-tree is how a tree is checked out of the repository into another folder.
    unsafe: { allowUnsafeConfigPaths: true },
    allowEnvironment: ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM', 'GIT_INDEX_FILE', ...Object.keys(extraEnv)],
    config: ['core.autocrlf=false', 'core.quotepath=off'],
  } as Parameters<typeof simpleGit>[0]).env({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? os.tmpdir(),
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    ...extraEnv,
  })
}

/** An opened repository: a folder git can read, and how to let go of it. */
export interface OpenRepository {
  /** The folder to run git in (the repository itself, or a bare clone of a bundle). */
  readonly dir: string
  readonly git: SimpleGit
  /** Removes the temporary clone of a bundle; a no-op for a repository folder. */
  dispose(): Promise<void>
}

/**
 * Opens `repo` for reading. A folder is used as it is; a file is taken for a
 * git bundle and cloned (bare) into a temporary folder first, since git reads
 * commits out of a bundle only by cloning or fetching it.
 */
export async function openRepository(repo: string): Promise<OpenRepository> {
  const info = await stat(repo).catch(() => undefined)
  if (info === undefined) throw new SpecError(`repository ${repo} does not exist`)
  if (info.isDirectory()) {
    const git = readerGit(repo)
    const inside = await git.raw(['rev-parse', '--git-dir']).catch(() => '')
    if (inside.trim() === '') throw new SpecError(`${repo} is not a git repository`)
    return { dir: repo, git, dispose: async () => undefined }
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-bundle-'))
  try {
    await readerGit(dir).raw(['clone', '--bare', '--quiet', '--no-hardlinks', path.resolve(repo), dir])
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw new SpecError(`${repo} is neither a git repository folder nor a git bundle git can clone: ${(error as Error).message.trim()}`)
  }
  return { dir, git: readerGit(dir), dispose: () => rm(dir, { recursive: true, force: true }) }
}

/** Resolves a commit-ish to its full id, or throws a `SpecError` naming the repository. */
export async function resolveCommit(repository: OpenRepository, commit: string, repoLabel: string): Promise<string> {
  const id = await repository.git.raw(['rev-parse', '--verify', '--quiet', `${commit}^{commit}`]).catch(() => '')
  if (!/^[0-9a-f]{40}$/.test(id.trim())) throw new SpecError(`${repoLabel}: no commit ${commit} in the repository`)
  return id.trim()
}

/**
 * Writes the tree of `commit` into `dest` (an empty folder), the way a
 * checkout would, without touching the repository's own index or work tree.
 */
export async function checkoutTree(repository: OpenRepository, commit: string, dest: string): Promise<void> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-index-'))
  try {
    const git = readerGit(repository.dir, { GIT_INDEX_FILE: path.join(scratch, 'index') })
    await git.raw([`--work-tree=${dest}`, 'read-tree', commit])
    await git.raw([`--work-tree=${dest}`, 'checkout-index', '--all', '--force'])
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}
