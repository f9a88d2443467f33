import { lstat, mkdir, mkdtemp, readFile, readlink, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { restoreProtected } from '../../src/oracle/protect.ts'

// restoreProtected on trees laid out by hand: no runner, no sandbox (the end-to-end case is in protect.test.ts).

/** A new temporary folder holding `files` (relative path → content). */
async function tree(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-protect-'))
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await writeFile(path.join(dir, file), content)
  }
  return dir
}

const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8')

describe('restoreProtected, on trees laid out by hand', () => {
  test('with no protected paths changes nothing and reports nothing', async () => {
    const starting = await tree({ 'base.txt': '1\n' })
    const copy = await tree({ 'base.txt': '2\n', 'extra.txt': 'x\n' })
    expect(await restoreProtected(copy, starting, [])).toEqual([])
    expect(await read(copy, 'base.txt')).toBe('2\n')
    expect(await read(copy, 'extra.txt')).toBe('x\n')
  })

  test('reports only the protected files that differ: one left as starting/ has it is not named', async () => {
    const starting = await tree({ 'data/a.csv': 'a\n', 'data/b.csv': 'b\n' })
    const copy = await tree({ 'data/a.csv': 'a\n', 'data/b.csv': 'changed\n' })
    expect(await restoreProtected(copy, starting, ['data/**'])).toEqual(['data/b.csv'])
    expect(await read(copy, 'data/a.csv')).toBe('a\n')
    expect(await read(copy, 'data/b.csv')).toBe('b\n')
  })

  test('leaves the files outside the protected paths as the agent left them, added or changed', async () => {
    const starting = await tree({ 'data/a.csv': 'a\n', 'app.sh': 'echo 1\n' })
    const copy = await tree({ 'data/a.csv': 'a\n', 'app.sh': 'echo 2\n', 'notes.txt': 'new\n' })
    expect(await restoreProtected(copy, starting, ['data/**'])).toEqual([])
    expect(await read(copy, 'app.sh')).toBe('echo 2\n')
    expect(await read(copy, 'notes.txt')).toBe('new\n')
  })

  test('matches dotfiles: a changed .env is put back, a planted .hidden removed', async () => {
    const starting = await tree({ 'config/.env': 'KEY=1\n' })
    const copy = await tree({ 'config/.env': 'KEY=2\n', 'config/.hidden': 'planted\n' })
    expect(await restoreProtected(copy, starting, ['config/**'])).toEqual(['config/.env', 'config/.hidden'])
    expect(await read(copy, 'config/.env')).toBe('KEY=1\n')
    await expect(lstat(path.join(copy, 'config', '.hidden'))).rejects.toThrow()
  })

  test('leaves .git alone (a folder or a file of that name), but not a path that only starts with .git such as .github/', async () => {
    const starting = await tree({ '.github/ci.yml': 'on: push\n', 'a.txt': 'a\n' })
    const copy = await tree({ '.git/HEAD': 'ref: refs/heads/main\n', '.github/ci.yml': 'on: never\n', 'a.txt': 'a\n' })
    expect(await restoreProtected(copy, starting, ['**'])).toEqual(['.github/ci.yml'])
    expect(await read(copy, '.git/HEAD')).toBe('ref: refs/heads/main\n')
    expect(await read(copy, '.github/ci.yml')).toBe('on: push\n')

    const worktree = await tree({ '.git': 'gitdir: /elsewhere\n', 'a.txt': 'a\n' })
    expect(await restoreProtected(worktree, starting, ['**'])).toEqual(['.github/ci.yml'])
    expect(await read(worktree, '.git')).toBe('gitdir: /elsewhere\n')
  })

  test('with no starting/ folder removes every protected file of the copy', async () => {
    const copy = await tree({ 'data/a.csv': 'a\n', 'app.sh': 'echo\n' })
    expect(await restoreProtected(copy, path.join(copy, 'no-such-starting'), ['data/**'])).toEqual(['data/a.csv'])
    await expect(lstat(path.join(copy, 'data', 'a.csv'))).rejects.toThrow()
    expect(await read(copy, 'app.sh')).toBe('echo\n')
  })

  test('gets a folder back where the agent put a file, and removes a link put where a folder was, never its target', async () => {
    const starting = await tree({ 'data/a.csv': 'a\n', 'keep/b.csv': 'b\n' })
    const copy = await tree({ data: 'a file now\n' })
    const outside = await tree({ 'b.csv': 'outside\n' })
    await symlink(outside, path.join(copy, 'keep'))
    expect(await restoreProtected(copy, starting, ['data/*.csv', 'keep/*.csv'])).toEqual(['data/a.csv', 'keep/b.csv'])
    expect(await read(copy, 'data/a.csv')).toBe('a\n')
    expect((await lstat(path.join(copy, 'keep'))).isDirectory()).toBe(true)
    expect(await read(copy, 'keep/b.csv')).toBe('b\n')
    expect(await read(outside, 'b.csv')).toBe('outside\n')
  })

  test('puts back a protected link as the link starting/ has, and removes a planted one', async () => {
    const starting = await tree({ 'data/a.csv': 'a\n' })
    await symlink('a.csv', path.join(starting, 'data', 'current.csv'))
    const copy = await tree({ 'data/a.csv': 'a\n' })
    await symlink('elsewhere.csv', path.join(copy, 'data', 'planted.csv'))
    expect(await restoreProtected(copy, starting, ['data/**'])).toEqual(['data/current.csv', 'data/planted.csv'])
    expect(await readlink(path.join(copy, 'data', 'current.csv'))).toBe('a.csv')
    await expect(lstat(path.join(copy, 'data', 'planted.csv'))).rejects.toThrow()
  })
})
