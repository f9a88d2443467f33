import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { lstat, readFile } from 'node:fs/promises'
import path from 'node:path'
import { HarnessFailure } from '../errors.ts'
import type { Task } from '../tasks/task.ts'
import { openRepository } from '../workspace/repository.ts'
import { dependencyContentMatches, dependencySeal, type PreparedDependencies } from '../workspace/dependencies.ts'
import { RACY_MARGIN_MS, StatSeal } from '../workspace/stat-seal.ts'
import { sha256 } from '../shared/sha256.ts'

/**
 * Checks before every run and before every oracle: the task folder's files
 * are hashed against the spec manifest, and between the two checks their
 * change times must stand still, so a file changed and put back during the
 * run is found too. The workspace's template is checked by its content (every
 * file's git blob hash and mode) against what it was made from (the fix's
 * parent commit in the source repository, or the task's `starting/`) the first
 * time a process meets it, and sealed then (`StatSeal`: every entry's inode,
 * size, mtime and ctime, kept in this process's memory). After every oracle
 * the seal must not have moved: an unmoved seal proves the template held what
 * was checked all along, this run and its oracle included, so a run needs no
 * content check before it starts, and no walk of the seal before its oracle
 * (the look after it covers that moment too, one `lstat` per entry once a
 * run). A moved seal means the content check again, and an entry written
 * since the run began, even put back, is tampering too. The task's prepared
 * dependency folder is sealed the same way, and its seal walked before the
 * oracle as well as after (the oracle runs the runner it holds). Any difference
 * stops the experiment (`HarnessFailure('tampered')`, never retried) naming
 * the file; the run is not recorded.
 */

/** One file as a tree lists it: git's mode and blob hash. */
interface Entry {
  readonly mode: string
  readonly blob: string
}

function blobSha(bytes: Buffer | string): string {
  const content = typeof bytes === 'string' ? Buffer.from(bytes) : bytes
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex')
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * The files below `dir` (`.git/` left out) as git would list them. Read with
 * synchronous calls, a few hundred files between turns of the event loop:
 * several times faster than a promise per file.
 */
async function treeOf(dir: string): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>()
  const found = readdirSync(dir, { recursive: true, withFileTypes: true })
  for (let i = 0; i < found.length; i++) {
    if (i > 0 && i % 500 === 0) await nextTurn()
    const dirent = found[i]!
    if (dirent.isDirectory()) continue
    const file = path.join(dirent.parentPath, dirent.name)
    const relative = path.relative(dir, file).split(path.sep).join('/')
    if (relative === '.git' || relative.startsWith('.git/')) continue
    const info = lstatSync(file, { throwIfNoEntry: false })
    if (info === undefined) continue
    if (info.isSymbolicLink()) entries.set(relative, { mode: '120000', blob: blobSha(readlinkSync(file)) })
    else entries.set(relative, { mode: (info.mode & 0o111) !== 0 ? '100755' : '100644', blob: blobSha(readFileSync(file)) })
  }
  return entries
}

/** `git ls-tree -r` of a commit in its source repository (submodules left out). */
async function commitTree(repo: string, commit: string): Promise<Map<string, Entry>> {
  const repository = await openRepository(repo)
  try {
    const listing = await repository.git.raw(['ls-tree', '-r', '-z', '--full-tree', commit])
    const entries = new Map<string, Entry>()
    for (const line of listing.split('\0')) {
      const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(line)
      if (match === null || match[2] !== 'blob') continue
      entries.set(match[4]!, { mode: match[1]!, blob: match[3]! })
    }
    return entries
  } finally {
    await repository.dispose()
  }
}

const expectedTrees = new Map<string, Promise<Map<string, Entry>>>()

/** What a task's template is made from: its repository and parent commit, or its `starting/`. */
function expectedKey(task: Task): string {
  return task.kind === 'git-fix' ? `${task.repo}\0${task.metadata.base}` : task.startingDir
}

/** What a task's template must hold: its parent commit's tree, or its `starting/`. Read once per process. */
function expectedTemplate(task: Task): Promise<Map<string, Entry>> {
  const key = expectedKey(task)
  let tree = expectedTrees.get(key)
  if (tree === undefined) {
    tree = task.kind === 'git-fix' ? commitTree(task.repo, task.metadata.base) : treeOf(task.startingDir)
    expectedTrees.set(key, tree)
  }
  return tree
}

/**
 * Per process: each template whose content this process found to be what it
 * was made from, sealed just before that check (key: the template's folder
 * and what it is made from). Only the harness's memory holds it.
 */
const sealedTemplates = new Map<string, StatSeal>()

function tampered(message: string): HarnessFailure {
  return new HarnessFailure(
    'tampered',
    `${message}. The experiment stops; this run is not recorded. Restore the file (or, for a template, remove it: it is exported again) and find what wrote it.`,
    { retryable: false },
  )
}

function firstDifference(actual: ReadonlyMap<string, Entry>, expected: ReadonlyMap<string, Entry>): string | undefined {
  for (const [file, entry] of expected) {
    const now = actual.get(file)
    if (now === undefined) return `${file} is missing`
    if (now.blob !== entry.blob || now.mode !== entry.mode) return `${file} changed`
  }
  for (const file of actual.keys()) if (!expected.has(file)) return `${file} was added`
  return undefined
}

/** Guards one run: made before the run, checked again before the oracle (the task files) and after it (everything). */
export class TaskGuard {
  readonly #task: Task
  readonly #root: string
  readonly #expected: Readonly<Record<string, string>>
  /** When the run began (the clock file change times are stamped from). */
  readonly #startedAtMs = Date.now()
  #fileCtimes = new Map<string, bigint>()
  #template: { dir: string; key: string; seal: StatSeal } | undefined
  #dependencies: { prepared: PreparedDependencies; seal: StatSeal } | undefined

  private constructor(task: Task, root: string, expected: Readonly<Record<string, string>>) {
    this.#task = task
    this.#root = root
    this.#expected = expected
  }

  /**
   * Checks the task folder's files against `expected` (SHA-256 by path
   * relative to `root`, the spec manifest's entries), or, without it, takes
   * their current hashes as the reference for this run.
   */
  static async beforeRun(task: Task, root: string, expected?: Readonly<Record<string, string>>): Promise<TaskGuard> {
    const guard = new TaskGuard(task, root, expected ?? (await TaskGuard.#hashFiles(task, root)).hashes)
    guard.#fileCtimes = await guard.#checkFiles('before the run')
    return guard
  }

  static async #hashFiles(task: Task, root: string): Promise<{ hashes: Record<string, string>; ctimes: Map<string, bigint> }> {
    const hashes: Record<string, string> = {}
    const ctimes = new Map<string, bigint>()
    for (const file of task.files) {
      const relative = path.relative(root, file).split(path.sep).join('/')
      const info = await lstat(file, { bigint: true }).catch(() => undefined)
      if (info === undefined) continue
      ctimes.set(relative, info.ctimeNs)
      hashes[relative] = sha256(await readFile(file))
    }
    return { hashes, ctimes }
  }

  async #checkFiles(when: string): Promise<Map<string, bigint>> {
    const { hashes, ctimes } = await TaskGuard.#hashFiles(this.#task, this.#root)
    for (const [file, sha] of Object.entries(this.#expected)) {
      if (hashes[file] === undefined) throw tampered(`${this.#task.id}: ${when}, task file ${file} is missing`)
      if (hashes[file] !== sha)
        throw tampered(`${this.#task.id}: ${when}, task file ${file} differs from the spec manifest (SHA-256 ${hashes[file]!.slice(0, 12)}…, locked ${sha.slice(0, 12)}…)`)
    }
    return ctimes
  }

  /** The first difference between the template's content now and what it was made from. */
  async #contentDifference(template: string): Promise<string | undefined> {
    return firstDifference(await treeOf(template), await expectedTemplate(this.#task))
  }

  /**
   * Before the agent starts: the template's content against what it was made
   * from, unless this process already did so and sealed it, and the folder is
   * still the one sealed (then the seal's check after the oracle covers this
   * run from its start).
   */
  async watchTemplate(template: string): Promise<void> {
    const key = `${template}\0${expectedKey(this.#task)}`
    const sealed = sealedTemplates.get(key)
    // A template exported anew since (a new folder) is checked in full now rather than found moved after the oracle.
    if (sealed !== undefined && !sealed.folderMoved()) {
      this.#template = { dir: template, key, seal: sealed }
      return
    }
    const seal = await StatSeal.take(template)
    const difference = await this.#contentDifference(template)
    if (difference !== undefined) throw tampered(`${this.#task.id}: before the run, its template ${template} no longer holds what it was made from: ${difference}`)
    if (!seal.racy) sealedTemplates.set(key, seal)
    this.#template = { dir: template, key, seal }
  }

  /**
   * Before the agent starts: the task's prepared dependency folder as its
   * content last matched its manifest, by its seal (`StatSeal`, as the
   * template's), checked again in full when the seal cannot vouch for it.
   */
  async watchDependencies(dependencies: PreparedDependencies | null): Promise<void> {
    if (dependencies === null) return
    const where = `${this.#task.id}: before the run, its prepared ${dependencies.mount} ${dependencies.folder}`
    const seal = await dependencySeal(dependencies).catch((error: unknown) => {
      throw error instanceof HarnessFailure ? tampered(`${where} no longer matches its manifest`) : error
    })
    this.#dependencies = { prepared: dependencies, seal }
  }

  /** Before and after the oracle: nothing in the folder moved since its seal (a racy seal: its content matches the manifest again). */
  async #checkDependencies(when: string): Promise<void> {
    if (this.#dependencies === undefined) return
    const { prepared, seal } = this.#dependencies
    const where = `${this.#task.id}: ${when}, its prepared ${prepared.mount} ${prepared.folder}`
    const moved = await seal.firstMoved()
    if (moved !== undefined) throw tampered(`${where} had ${moved === '' ? '.' : moved} written since it was checked against its manifest`)
    if (seal.racy && !(await dependencyContentMatches(prepared))) throw tampered(`${where} no longer matches its manifest`)
  }

  /** The template folder whose seal this guard checks after the oracle (undefined until `watchTemplate`). */
  get watchedTemplate(): string | undefined {
    return this.#template?.dir
  }

  /**
   * Before the oracle: the prepared dependency folder's seal (the oracle runs
   * the runner it holds: a modified one never judges) and the task files (the
   * oracle reads them: the fix's tests, `verify.sh`), none written to since
   * the run began, even if put back. The template's seal is not walked here:
   * the look after the oracle follows every oracle of a run and covers this
   * moment too (a write now has moved it then); a sandboxed agent never sees
   * the template, and without a sandbox the oracle's copy on disk is made
   * through `parentTemplate`, which walks the seal itself and exports a moved
   * template anew.
   */
  async beforeOracle(): Promise<void> {
    const when = 'before the oracle'
    await this.#checkDependencies(when)
    await this.#checkTaskFiles(when)
  }

  /**
   * After the oracle: the dependency folder's seal and the task files once
   * more, and the template's seal. The oracle runs the agent's code (the
   * tests import it; `verify.sh` runs over it), so a task file or template
   * written while it ran, or earlier in the run, is found here, and the
   * experiment stops.
   */
  async afterOracle(): Promise<void> {
    const when = 'after the oracle'
    await this.#checkDependencies(when)
    await this.#checkTaskFiles(when)
    await this.#checkTemplate(when)
  }

  async #checkTaskFiles(when: string): Promise<void> {
    const ctimes = await this.#checkFiles(when)
    for (const [file, ctime] of this.#fileCtimes) {
      if (ctimes.get(file) !== ctime) throw tampered(`${this.#task.id}: ${when}, task file ${file} was written during the run (its change time moved), even if its content is back`)
    }
  }

  async #checkTemplate(when: string): Promise<void> {
    if (this.#template === undefined) return
    const { dir, key, seal } = this.#template
    if (!seal.racy && (await seal.firstMoved()) === undefined) return
    // Moved (or racy): the content again, and when each moved entry was written.
    sealedTemplates.delete(key)
    const now = await StatSeal.take(dir)
    const difference = await this.#contentDifference(dir)
    const since = seal.takenAtMs >= this.#startedAtMs ? 'changed during the run' : `changed since this process checked it (${new Date(seal.takenAtMs).toISOString()})`
    if (difference !== undefined) throw tampered(`${this.#task.id}: ${when}, its template ${dir} ${since}: ${difference}`)
    const during = seal.movedIn(now).find((entry) => entry.ctimeMs >= this.#startedAtMs - RACY_MARGIN_MS)
    if (during !== undefined) {
      throw tampered(
        `${this.#task.id}: ${when}, template entry ${during.path === '' ? '.' : during.path} was written during the run (its change time moved), even if its content is back`,
      )
    }
    // Changed before this run began and put back since: the content is what it was made from, and stood still during the run.
    if (!now.racy) sealedTemplates.set(key, now)
  }
}
