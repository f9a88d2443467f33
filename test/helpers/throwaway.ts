import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { testCommandEnv } from '../../src/oracle/test-command.ts'
import { readerGit } from '../../src/workspace/repository.ts'
import { vitestProjectFiles } from './vitest-lockfile.ts'

/**
 * Throwaway git repositories for tests: a history written commit by commit
 * with fixed dates, and the real test runners' commands for it.
 */

/** One commit of a throwaway history: files to write (null deletes), subject, and date. */
export interface Step {
  readonly subject: string
  /** ISO date; default one day after the previous step, from 2026-07-01. */
  readonly date?: string
  readonly files: Readonly<Record<string, string | null>>
}

/** Makes a repository in a fresh temp folder and commits each step; returns the folder and the commit ids. */
export async function buildRepo(steps: readonly Step[], prefix = 'throwaway-'): Promise<{ dir: string; commits: string[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix))
  const commits: string[] = []
  let day = Date.parse('2026-07-01T09:00:00Z')
  await readerGit(dir).raw(['init', '-q', '-b', 'main'])
  for (const step of steps) {
    for (const [file, content] of Object.entries(step.files)) {
      const target = path.join(dir, file)
      if (content === null) await rm(target, { force: true })
      else {
        await mkdir(path.dirname(target), { recursive: true })
        await writeFile(target, content)
      }
    }
    const date = step.date ?? new Date(day).toISOString()
    day = Date.parse(date) + 86_400_000
    const git = readerGit(dir, {
      GIT_AUTHOR_NAME: 'Test Author',
      GIT_AUTHOR_EMAIL: 'author@example.com',
      GIT_COMMITTER_NAME: 'Test Author',
      GIT_COMMITTER_EMAIL: 'author@example.com',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    })
    await git.raw(['add', '-A', '.'])
    await git.raw(['commit', '-q', '--no-verify', '--allow-empty', '-m', step.subject])
    commits.push((await git.revparse(['HEAD'])).trim())
  }
  return { dir, commits }
}

/** node --test writing JUnit to {junit}. */
export const NODE_TEST_COMMAND = 'node --test --test-reporter=junit --test-reporter-destination={junit} {tests}'

/**
 * A throwaway Vitest project as a user has one: this project's own Vitest as its only devDependency, with a
 * package-lock.json that `npm ci --offline` installs from npm's cache alone (`vitest-lockfile.ts`). Harvest
 * prepares its `node_modules` from the lockfile (`dependencies: 'auto'`) and the test command runs the runner from
 * there, inside the sandbox, as a run's oracle does; `--globals` since the fixtures' tests import nothing from it.
 */
export function vitestProject(name = 'vitest-fixture'): { files: Record<string, string>; testCommand: string } {
  const { packageJson, packageLock } = vitestProjectFiles(name)
  return {
    files: { 'package.json': packageJson, 'package-lock.json': packageLock },
    testCommand: 'node_modules/.bin/vitest run --globals --reporter=junit --outputFile={junit} {tests}',
  }
}

/**
 * A Python interpreter that has pytest, found the way the test command will
 * run it (the oracle's clean environment): `python3` first on PATH (pyenv
 * here), then Debian's /usr/bin/python3 (CI installs python3-pytest for it).
 * Null only when no interpreter has pytest.
 */
export function findPytestPython(): string | null {
  const env = testCommandEnv(os.tmpdir())
  for (const python of ['python3', '/usr/bin/python3', 'python']) {
    try {
      execFileSync(python, ['-m', 'pytest', '--version'], { env, stdio: 'ignore', timeout: 30_000 })
      return python
    } catch {
      // Try the next one.
    }
  }
  return null
}

/** pytest writing JUnit to {junit}, with the interpreter found above. */
export function pytestCommand(python: string): string {
  return `${python} -m pytest -p no:cacheprovider -q --continue-on-collection-errors --junitxml={junit} {tests}`
}
