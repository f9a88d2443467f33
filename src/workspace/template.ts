import { cp, lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rename, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { copyFolder } from './copy-folder.ts'
import { handOver } from '../sandbox/index.ts'
import { commitAll, harnessGit } from './git.ts'
import { StatSeal } from './stat-seal.ts'
import { checkoutTree, openRepository, resolveCommit, type OpenRepository } from './repository.ts'
import { discardPublished } from './discard.ts'
import { sha256, sha256Hasher } from '../shared/sha256.ts'
import { markInUse } from './cache-uses.ts'

/**
 * Templates: each (repository, parent commit) is exported once into a
 * one-commit repository, and every run of a task gets a copy of it. Exporting
 * reads the source repository (and clones a bundle first); copying is a
 * single `cp -a` of a few packed files and the work tree.
 *
 * The cache is shared by every process (parallel Vitest workers, harvest
 * workers): a template is built in a private folder and published with one
 * atomic rename, so a reader sees either no template or a complete one, and
 * two builders racing both end up using whichever rename won.
 */

/** Bumped whenever the template's contents change shape, so old caches are not reused (2: owned by the sandbox uid under root). */
export const TEMPLATE_FORMAT = 2

/** The commit message of every workspace's single commit (neutral: it must not hint at the task). */
export const STARTING_POINT_MESSAGE = 'starting point'

/**
 * Where templates live: `$TASK_OUTCOME_TEMPLATES`, or a folder of the system
 * temp folder. Outside the workspace root on purpose, so an agent that climbs
 * out of its workspace does not walk into the templates.
 */
export function templateRoot(): string {
  return process.env.TASK_OUTCOME_TEMPLATES ?? path.join(os.tmpdir(), 'task-outcome-templates')
}

/** The cache key of a (repository, commit): the repository's real path, the commit, and the template format. */
export async function templateKey(repo: string, base: string): Promise<string> {
  const real = await realpath(repo).catch(() => path.resolve(repo))
  return sha256(`${TEMPLATE_FORMAT}\0${real}\0${base}`).slice(0, 32)
}

/** The folder a template is (or would be) published at. */
export async function templatePath(repo: string, base: string, root: string = templateRoot()): Promise<string> {
  return path.join(root, await templateKey(repo, base))
}

async function isDirectory(dir: string): Promise<boolean> {
  return stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  )
}

/**
 * What differs in a template from its one commit (`git status` lines; empty
 * when pristine). Reads only: no index refresh is written, so concurrent
 * readers never race on the template's lock.
 */
async function templateChanges(dir: string): Promise<string> {
  const status = await harnessGit(dir)
    .raw(['--no-optional-locks', 'status', '--porcelain', '--untracked-files=all', '--ignored=matching'])
    .catch((error: unknown) => `unreadable: ${(error as Error).message.trim()}`)
  return status.trim()
}

/** Options of `parentTemplate`. */
export interface TemplateOptions {
  /** The cache folder (default `templateRoot()`). */
  readonly root?: string
  /** An already opened repository (saves cloning a bundle again). */
  readonly repository?: OpenRepository
}

/**
 * Per process: each published template this process found pristine (`git
 * status` clean), with its seal taken just before that check. While the seal
 * has not moved, the template is still what was checked; a moved seal sends
 * it through the check again.
 */
const checkedTemplates = new Map<string, StatSeal>()

/** Whether the template at `final` is still as this process checked it (false when it never checked it, or it moved). */
async function stillChecked(final: string): Promise<boolean> {
  const seal = checkedTemplates.get(final)
  if (seal === undefined) return false
  if ((await seal.firstMoved().catch(() => 'unreadable')) === undefined) return true
  checkedTemplates.delete(final)
  return false
}

/**
 * The template of (`repo`, `base`) as this process last checked it, or
 * undefined when it has not: `stillChecked()` starts the seal's check (one
 * `lstat` per entry) so that a caller can mount the template meanwhile, and
 * use it only when the check says true (otherwise `parentTemplate`, which
 * checks it again or exports it anew).
 */
export async function checkedTemplate(repo: string, base: string, root: string = templateRoot()): Promise<{ readonly dir: string; stillChecked(): Promise<boolean> } | undefined> {
  const final = await templatePath(repo, base, root)
  const seal = checkedTemplates.get(final)
  if (seal === undefined) return undefined
  // Gone or replaced (one lstat): nothing to mount over yet; `parentTemplate` checks or exports it.
  if (seal.folderMoved()) {
    checkedTemplates.delete(final)
    return undefined
  }
  return { dir: final, stillChecked: () => stillChecked(final) }
}

/**
 * Exports `base` of `repo` as a one-commit repository (fixed author and date,
 * no history, objects packed), once per (repository, commit), and returns its
 * folder. Copy it with `copyTemplate`; never change it. A published template
 * is checked before it is used: the first time in a process with `git status`
 * (about 70 ms for 5,000 files), later by its seal (`StatSeal`: nothing it
 * holds was written since). One that no longer matches its commit is exported
 * again.
 */
export async function parentTemplate(repo: string, base: string, options: TemplateOptions = {}): Promise<string> {
  const root = options.root ?? templateRoot()
  const final = await templatePath(repo, base, root)
  if (await stillChecked(final)) return final
  markInUse(root, path.basename(final))
  if (await isDirectory(final)) {
    const seal = await StatSeal.take(final).catch(() => undefined)
    const changes = await templateChanges(final)
    if (changes === '') {
      // A seal with entries changed a moment ago cannot vouch for them later: the next use checks again.
      if (seal !== undefined && !seal.racy) checkedTemplates.set(final, seal)
      return final
    }
    // Something wrote into the template (an agent that climbed out of its workspace?): every later run would
    // start from, and be judged on, a modified parent. Set it aside and export it again.
    process.stderr.write(`task-outcome: the template of ${repo} at ${base.slice(0, 12)} was modified (${changes.split('\n').slice(0, 3).join('; ')}); exporting it again\n`)
    await discardPublished(final, root)
  }
  await mkdir(root, { recursive: true })
  const building = await mkdtemp(path.join(root, `.building-${path.basename(final)}-`))
  const repository = options.repository ?? (await openRepository(repo))
  try {
    const commit = await resolveCommit(repository, base, repo)
    await checkoutTree(repository, commit, building)
    await commitAll(building, STARTING_POINT_MESSAGE)
    await harnessGit(building).raw(['repack', '-a', '-d', '-q'])
    // Under root the sandbox uid writes the template's overlay, so it owns the template (before any seal is taken).
    handOver([building])
    try {
      await rename(building, final)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Another process published the same template first: use theirs.
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !(await isDirectory(final))) throw error
      await rm(building, { recursive: true, force: true })
    }
  } catch (error) {
    await rm(building, { recursive: true, force: true })
    throw error
  } finally {
    if (options.repository === undefined) await repository.dispose()
  }
  return final
}

/**
 * Copies a template's contents (work tree and `.git`) into `dest`, an
 * existing empty folder, keeping modes and symbolic links; on Linux the copy
 * shares blocks with the template where the file system can (reflinks).
 */
export async function copyTemplate(template: string, dest: string): Promise<void> {
  await copyFolder(template, dest)
}

/** Removes a template (tests and benchmarks clean up after themselves). */
export async function removeTemplate(repo: string, base: string, root: string = templateRoot()): Promise<void> {
  await discardPublished(await templatePath(repo, base, root), root)
}

/** The cache key of a folder task's `starting/` (its template's name in the cache): every file's path, mode and bytes. */
export async function folderKey(startingDir: string): Promise<string> {
  const hash = sha256Hasher().update(`folder\0${TEMPLATE_FORMAT}\0`)
  const entries = await readdir(startingDir, { recursive: true, withFileTypes: true })
  const files = entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(startingDir, path.join(entry.parentPath, entry.name)))
    .sort()
  for (const file of files) {
    const full = path.join(startingDir, file)
    const info = await lstat(full)
    hash.update(`${file}\0${info.mode}\0`)
    hash.update(info.isSymbolicLink() ? await readlink(full) : await readFile(full))
    hash.update('\0')
  }
  return `folder-${hash.digest('hex').slice(0, 32)}`
}

/**
 * A folder task's template: its `starting/` made a one-commit repository,
 * once per content (so a changed `starting/` is a new template), published
 * atomically like `parentTemplate`. Never change it.
 */
export async function folderTemplate(startingDir: string, root: string = templateRoot()): Promise<string> {
  const final = path.join(root, await folderKey(startingDir))
  markInUse(root, path.basename(final))
  if (await isDirectory(final)) return final
  await mkdir(root, { recursive: true })
  const building = await mkdtemp(path.join(root, `.building-${path.basename(final)}-`))
  try {
    await cp(startingDir, building, { recursive: true, verbatimSymlinks: true })
    await commitAll(building, STARTING_POINT_MESSAGE)
    handOver([building])
    try {
      await rename(building, final)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !(await isDirectory(final))) throw error
      await rm(building, { recursive: true, force: true })
    }
  } catch (error) {
    await rm(building, { recursive: true, force: true })
    throw error
  }
  return final
}
