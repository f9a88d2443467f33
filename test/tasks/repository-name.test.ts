import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { ProblemsError } from '../../src/errors.ts'
import { loadTaskSet } from '../../src/tasks/load.ts'
import { repositoryName, RepositoryNameSchema } from '../../src/tasks/repository-name.ts'

describe("a repository's portable name", () => {
  test("is its folder's or bundle's name without .git or .bundle, never a host path", () => {
    expect(repositoryName('/srv/checkouts/kebab')).toBe('kebab')
    expect(repositoryName('/srv/bundles/kebab.bundle')).toBe('kebab')
    expect(repositoryName('relative/dir/lib.git')).toBe('lib')
    expect(repositoryName('/tmp/my lib!/')).toBe('my-lib-')
    expect(repositoryName('/tmp/.hidden')).toBe('hidden')
  })

  test('every default name is a valid name', () => {
    for (const input of ['/a/b', '/x/.git', '/x/-lead', '/x/é', '/x/a b.bundle']) {
      expect(RepositoryNameSchema.safeParse(repositoryName(input)).success, input).toBe(true)
    }
  })

  test('a name with a path separator or a leading dot is refused', () => {
    for (const bad of ['a/b', '../x', '.git', '', 'a\\b']) expect(RepositoryNameSchema.safeParse(bad).success, bad).toBe(false)
  })
})

/** Writes a git-fix task folder whose metadata.json has `extra` added, and a repository folder beside the set. */
async function gitFixTask(extra: Record<string, unknown>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-repository-name-'))
  await mkdir(path.join(root, 'widgets.git'))
  const dir = path.join(root, 'set', '001-fix')
  await mkdir(path.join(dir, 'oracle'), { recursive: true })
  await writeFile(path.join(dir, 'oracle', 'a.test.js'), 'test\n')
  await writeFile(path.join(dir, 'task.md'), 'Fix it.\n')
  const metadata = {
    id: '001',
    slug: 'fix',
    kind: 'git-fix',
    repo: '../../widgets.git',
    base: 'a'.repeat(40),
    fix: 'b'.repeat(40),
    gold_files: ['a.js'],
    test_files: ['a.test.js'],
    FAIL_TO_PASS: ['a works'],
    PASS_TO_PASS: [],
    test_command: 'node --test {tests}',
    ...extra,
  }
  await writeFile(path.join(dir, 'metadata.json'), JSON.stringify(metadata))
  return path.join(root, 'set')
}

describe("a git-fix task's repository", () => {
  test('is the name metadata.json gives', async () => {
    const setDir = await gitFixTask({ repository: 'upstream-widgets' })
    const [task] = await loadTaskSet(setDir, {}, setDir)
    expect(task?.kind === 'git-fix' && task.repository).toBe('upstream-widgets')
  })

  test("is the repo folder's name when metadata.json gives none (task sets written before the field)", async () => {
    const setDir = await gitFixTask({})
    const [task] = await loadTaskSet(setDir, {}, setDir)
    expect(task?.kind === 'git-fix' && task.repository).toBe('widgets')
  })

  test('a name that is a path is refused with its field', async () => {
    const setDir = await gitFixTask({ repository: '/home/me/widgets' })
    const error = await loadTaskSet(setDir, {}, setDir).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ProblemsError)
    expect((error as ProblemsError).problems.map((problem) => problem.field)).toContain('repository')
  })
})
