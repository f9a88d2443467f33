import { constants } from 'node:fs'
import { access, lstat, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { ProblemsError, schemaProblems, type Problem } from '../errors.ts'
import { readRenamedField, TaskMetadataSchema, type TaskMetadata } from './metadata.ts'
import type { FolderSolution, Task } from './task.ts'
import { repositoryName } from './repository-name.ts'

/** A task folder's name: `<NNN>-<slug>`. */
export const TASK_FOLDER_PATTERN = /^(\d{3,})-([a-z0-9][a-z0-9-]*)$/

/** Which tasks of a set to load. */
export interface TaskFilter {
  /** Only these task ids (folder names). */
  readonly include?: readonly string[]
  /** Only the first N, by folder name, after `include`. */
  readonly first?: number
}

/** Collects problems while a task is checked, so all of them are reported together. */
class ProblemList {
  readonly items: Problem[] = []
  constructor(private readonly root: string) {}

  add(file: string, field: string | undefined, message: string): void {
    this.items.push({ file: path.relative(this.root, file) || file, ...(field === undefined ? {} : { field }), message })
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file)
    return true
  } catch {
    return false
  }
}

/** Every file below `dir` (absolute, sorted); symlinks and other non-regular entries are problems. */
async function listRegularFiles(dir: string, problems: ProblemList): Promise<string[]> {
  const files: string[] = []
  const walk = async (current: string): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true })
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = path.join(current, entry.name)
      if (entry.isDirectory()) await walk(full)
      else if (entry.isFile()) files.push(full)
      else if (entry.isSymbolicLink()) {
        problems.add(full, undefined, 'is a symbolic link; task folders hold regular files only (copy the file in instead)')
      } else problems.add(full, undefined, 'is not a regular file; task folders hold regular files only')
    }
  }
  await walk(dir)
  return files
}

/** Parses `metadata.json`, reporting JSON syntax errors with their position and schema errors with their field. */
async function readMetadata(file: string, problems: ProblemList): Promise<TaskMetadata | undefined> {
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      problems.add(file, undefined, 'missing: every task folder needs a metadata.json')
    } else problems.add(file, undefined, `not valid JSON: ${(error as Error).message}`)
    return undefined
  }
  const parsed = TaskMetadataSchema.safeParse(readRenamedField(raw, file, 'toolchain', 'dependencies'))
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      issue.code === 'invalid_union' && issue.path.join('.') === 'kind' ? { ...issue, message: 'must be "folder" or "git-fix"' } : issue,
    )
    for (const { field, message } of schemaProblems(issues)) problems.add(file, field, message)
    return undefined
  }
  return parsed.data
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

async function findFolderSolution(dir: string, problems: ProblemList): Promise<FolderSolution | null> {
  const solutionDir = path.join(dir, 'solution')
  if (!(await exists(solutionDir))) return null
  const solveScript = path.join(solutionDir, 'solve.sh')
  if (await exists(solveScript)) {
    if (!(await isExecutable(solveScript))) problems.add(solveScript, undefined, 'is not executable: run `chmod +x` on it')
    return { kind: 'script', path: solveScript }
  }
  const patches = (await readdir(solutionDir)).filter((name) => name.endsWith('.patch') || name.endsWith('.diff'))
  if (patches.length === 1) return { kind: 'patch', path: path.join(solutionDir, patches[0]!) }
  problems.add(solutionDir, undefined, patches.length === 0 ? 'holds neither solve.sh nor a .patch file' : `holds ${patches.length} patches; keep exactly one`)
  return null
}

/** Checks and loads one task folder; problems go to the list, and a task comes back only when it has none. */
async function checkTask(dir: string, problems: ProblemList): Promise<Task | undefined> {
  const before = problems.items.length
  const folderName = path.basename(dir)
  const metadataFile = path.join(dir, 'metadata.json')
  const match = TASK_FOLDER_PATTERN.exec(folderName)
  if (match === null) problems.add(dir, undefined, 'folder name must be "<NNN>-<slug>" (e.g. 001-off-by-one)')

  const files = await listRegularFiles(dir, problems)
  const metadata = await readMetadata(metadataFile, problems)
  if (metadata !== undefined && match !== null) {
    if (metadata.id !== match[1]) problems.add(metadataFile, 'id', `is "${metadata.id}" but the folder says "${match[1]}"`)
    if (metadata.slug !== match[2]) problems.add(metadataFile, 'slug', `is "${metadata.slug}" but the folder says "${match[2]}"`)
  }

  const promptFile = path.join(dir, 'task.md')
  let prompt = ''
  try {
    prompt = await readFile(promptFile, 'utf8')
    if (prompt.trim() === '') problems.add(promptFile, undefined, 'is empty: write the prompt the agent gets')
  } catch {
    problems.add(promptFile, undefined, 'missing: write the exact prompt the agent gets')
  }

  if (metadata?.kind === 'folder') {
    const startingDir = path.join(dir, 'starting')
    const verifyScript = path.join(dir, 'verify.sh')
    if (
      !(await lstat(startingDir).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    ) {
      problems.add(startingDir, undefined, 'missing: a folder task needs starting/ (the workspace seed)')
    }
    if (!(await exists(verifyScript))) problems.add(verifyScript, undefined, 'missing: a folder task needs verify.sh (exit 0 = solved)')
    else if (!(await isExecutable(verifyScript))) problems.add(verifyScript, undefined, 'is not executable: run `chmod +x` on it')
    const both = metadata.target_skill === 'none' && metadata.irrelevant_skill === 'none'
    if (metadata.target_skill === metadata.irrelevant_skill && !both) {
      problems.add(metadataFile, 'irrelevant_skill', `equals target_skill ("${metadata.target_skill}"): pick a skill that should not help`)
    }
    const solution = await findFolderSolution(dir, problems)
    if (problems.items.length > before) return undefined
    return { kind: 'folder', id: folderName, dir, prompt, files, metadata, startingDir, verifyScript, solution }
  }

  if (metadata?.kind === 'git-fix') {
    const oracleDir = path.join(dir, 'oracle')
    for (const testFile of metadata.test_files) {
      if (!(await exists(path.join(oracleDir, testFile)))) {
        problems.add(metadataFile, 'test_files', `"${testFile}" is not in oracle/: copy the fix's version of it there`)
      }
    }
    const repo = path.resolve(dir, metadata.repo)
    if (!(await exists(repo))) problems.add(metadataFile, 'repo', `"${metadata.repo}" does not exist (resolved to ${repo})`)
    const goldPatchFile = path.join(dir, 'solution', 'gold.patch')
    const goldPatch = (await exists(goldPatchFile)) ? goldPatchFile : null
    if (problems.items.length > before) return undefined
    return { kind: 'git-fix', id: folderName, dir, prompt, files, metadata, repo, repository: metadata.repository ?? repositoryName(repo), oracleDir, goldPatch }
  }
  return undefined
}

/** Loads one task folder; throws a `ProblemsError` naming every problem. */
export async function loadTask(dir: string, root: string = process.cwd()): Promise<Task> {
  const problems = new ProblemList(root)
  const task = await checkTask(path.resolve(dir), problems)
  if (task === undefined) {
    throw new ProblemsError(`${path.relative(root, dir) || dir}: the task folder is not valid:`, problems.items)
  }
  return task
}

/** The task folders of a set: sub-folders that hold a metadata.json or are named like a task. */
export async function listTaskDirs(setDir: string): Promise<string[]> {
  const entries = await readdir(setDir, { withFileTypes: true })
  const dirs: string[] = []
  for (const entry of entries) {
    if (!entry.isDirectory()) continue
    const dir = path.join(setDir, entry.name)
    if (TASK_FOLDER_PATTERN.test(entry.name) || (await exists(path.join(dir, 'metadata.json')))) dirs.push(dir)
  }
  return dirs.sort()
}

/**
 * The task folder an `include` entry names: the folder's whole name (`001-greeting-punctuation`), or the task
 * id its name starts with (`001`, as `<id>-<slug>`), which must name exactly one folder.
 */
function includedDir(dirs: readonly string[], id: string): string | { problem: string } {
  const exact = dirs.find((dir) => path.basename(dir) === id)
  if (exact !== undefined) return exact
  const byId = dirs.filter((dir) => path.basename(dir).startsWith(`${id}-`))
  if (byId.length === 1) return byId[0]!
  if (byId.length === 0) return { problem: `no task folder "${id}" (nor one named "${id}-<slug>")` }
  return { problem: `"${id}" names ${byId.length} task folders (${byId.map((dir) => path.basename(dir)).join(', ')}): write the whole folder name` }
}

/**
 * Loads and validates every task of a set (after the filter). Every problem of
 * every task is reported at once, each naming its file and field.
 */
export async function loadTaskSet(setDir: string, filter: TaskFilter = {}, root: string = process.cwd()): Promise<Task[]> {
  const problems = new ProblemList(root)
  if (
    !(await lstat(setDir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    problems.add(setDir, undefined, 'no such task set folder')
    throw new ProblemsError('The task set cannot be loaded:', problems.items)
  }
  let dirs = await listTaskDirs(setDir)
  if (filter.include !== undefined) {
    const all = dirs
    dirs = filter.include.flatMap((id) => {
      const named = includedDir(all, id)
      if (typeof named === 'string') return [named]
      problems.add(setDir, 'tasks.include', named.problem)
      return []
    })
  }
  if (filter.first !== undefined) dirs = dirs.slice(0, filter.first)
  const tasks: Task[] = []
  for (const dir of dirs) {
    const task = await checkTask(dir, problems)
    if (task !== undefined) tasks.push(task)
  }
  if (problems.items.length > 0) {
    throw new ProblemsError(`${path.relative(root, setDir) || setDir}: ${problems.items.length} problem(s) in the task set:`, problems.items)
  }
  return tasks
}
