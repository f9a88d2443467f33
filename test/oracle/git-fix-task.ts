import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { harvest } from '../../src/curate/harvest/harvest.ts'
import { buildRule } from '../../src/curate/harvest/rule.ts'
import { readCandidatesFile, ruleFromRecord, type SingleRepositoryFile } from '../../src/curate/harvest/candidates-file.ts'
import { loadTask } from '../../src/tasks/load.ts'
import { runFixTests, type FixTestsJudgement } from '../../src/oracle/git-fix.ts'
import { writeTaskFolder } from '../../src/curate/select/write-task.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import { openRepository } from '../../src/workspace/repository.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { removeTemplate } from '../../src/workspace/template.ts'
import type { DependencyRecipe } from '../../src/workspace/dependencies.ts'
import { afterAll, beforeAll } from 'vitest'
import { buildRepo, type Step, vitestProject } from '../helpers/throwaway.ts'

/** A throwaway repository harvested and turned into task folders, ready for workspaces and the oracle. */
export interface HarvestedFixture {
  readonly repo: { dir: string; commits: string[] }
  readonly candidates: SingleRepositoryFile
  /** One loaded task per candidate, in the candidates file's order. */
  readonly tasks: GitFixTask[]
  /** Removes the repository, the task folders and the templates the tasks used. */
  cleanup(): Promise<void>
}

/**
 * Builds a repository from `steps`, harvests it with `testCommand` and the
 * given test and source globs, and writes a task folder for every candidate
 * (prompt: the subject), the way `select` does.
 */
export async function harvestedTasks(
  steps: readonly Step[],
  options: { testCommand: string; source: string[]; tests: string[]; dependencies?: DependencyRecipe | 'auto' },
): Promise<HarvestedFixture> {
  const repo = await buildRepo(steps, 'oracle-repo-')
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'oracle-set-'))
  const out = path.join(scratch, 'candidates.json')
  const candidates = await harvest({
    repo: repo.dir,
    rule: buildRule({ source: options.source, tests: options.tests }),
    testCommand: options.testCommand,
    out,
    jobs: 2,
    ...(options.dependencies === undefined ? {} : { dependencies: options.dependencies }),
  })
  const loaded = await readCandidatesFile(out)
  const repository = await openRepository(repo.dir)
  const tasks: GitFixTask[] = []
  try {
    for (const [index, candidate] of candidates.candidates.entries()) {
      const dependencies = candidate.dependencies ?? loaded.sources[0]!.dependencies
      const name = await writeTaskFolder({
        setDir: path.join(scratch, 'set'),
        index: index + 1,
        candidate,
        prompt: `${candidate.subject}\n`,
        repo: loaded.sources[0]!.repo,
        repositoryName: loaded.sources[0]!.name,
        repository,
        rule: ruleFromRecord(candidates.rule),
        testCommand: candidates.test_command,
        ...(dependencies === undefined ? {} : { dependencies }),
      })
      tasks.push((await loadTask(path.join(scratch, 'set', name))) as GitFixTask)
    }
  } finally {
    await repository.dispose()
  }
  return {
    repo,
    candidates,
    tasks,
    async cleanup() {
      for (const task of tasks) await removeTemplate(task.repo, task.metadata.base)
      await rm(repo.dir, { recursive: true, force: true })
      await rm(scratch, { recursive: true, force: true })
    },
  }
}

/**
 * A throwaway Vitest project (this repository's Vitest from a lockfile, `vitestProject()`) with one initial commit and
 * one fix, harvested with its `node_modules` prepared from the lockfile and `src/**` / `test/**` as the globs.
 */
export function harvestedVitestTasks(
  initial: Readonly<Record<string, string>>,
  fix: { readonly subject: string; readonly files: Readonly<Record<string, string>> },
): Promise<HarvestedFixture> {
  const project = vitestProject()
  return harvestedTasks(
    [
      { subject: 'Initial slugs', files: { ...project.files, ...initial } },
      { subject: fix.subject, files: fix.files },
    ],
    { testCommand: project.testCommand, dependencies: 'auto', source: ['src/**/*.js'], tests: ['test/**/*.test.js'] },
  )
}

/** Writes files into a workspace the way an agent would (null deletes). */
export async function agentWrites(dir: string, files: Readonly<Record<string, string | null>>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(dir, file)
    if (content === null) await rm(target, { force: true })
    else {
      await mkdir(path.dirname(target), { recursive: true })
      await writeFile(target, content)
    }
  }
}

/** The git-fix oracle on a harvested fixture's first task, against changes written the way an agent would. */
export interface JudgedFixture {
  /** The fixture's first task (once the file's beforeAll has run). */
  readonly task: GitFixTask
  /**
   * A fresh workspace of the task with `files` written as the agent's change, judged by `runFixTests` (of `target`,
   * the task by default), on the host or, with `sandboxed`, in a sandbox that sees the harness's Node.
   */
  judge(files: Readonly<Record<string, string | null>>, options?: { readonly sandboxed?: boolean; readonly target?: GitFixTask }): Promise<FixTestsJudgement>
}

/**
 * Makes the fixture before the file's tests (`make`, e.g. `harvestedTasks(...)`) and removes it, its workspaces and
 * its scratch folder (`prefix`) after them: the setup every oracle test file over one harvested task shares.
 */
export function judgedFixture(make: () => Promise<HarvestedFixture>, prefix: string): JudgedFixture {
  let fixture: HarvestedFixture | undefined
  let scratch: string | undefined
  const workspaces: Workspace[] = []
  beforeAll(async () => {
    fixture = await make()
    scratch = await mkdtemp(path.join(os.tmpdir(), prefix))
  })
  afterAll(async () => {
    for (const workspace of workspaces) await workspace.dispose()
    await fixture?.cleanup()
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true })
  })
  return {
    get task() {
      return fixture!.tasks[0]!
    },
    async judge(files, options = {}) {
      const task = fixture!.tasks[0]!
      const workspace = await createGitFixWorkspace(task, scratch!)
      workspaces.push(workspace)
      await workspace.snapshot()
      await agentWrites(workspace.dir, files)
      const sandbox = options.sandboxed === true ? { sandbox: { readOnly: [path.dirname(path.dirname(process.execPath))] } } : {}
      return runFixTests(options.target ?? task, workspace, { timeoutMs: 60_000, scratchDir: await mkdtemp(path.join(scratch!, 'oracle-')), ...sandbox })
    },
  }
}
