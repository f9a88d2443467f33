import { chmod, lstat, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { CODE_EXTENSIONS, protectedPaths } from '../../src/oracle/folder-defaults.ts'
import type { OracleToolchain } from '../../src/oracle/toolchain.ts'
import { folderTask as laidTask } from '../helpers/folder-task.ts'

// protectedPaths on task folders laid out by hand, the reference solution run on the host (no sandbox, no runner;
// the end-to-end case is in folder-defaults.test.ts).

const OPTIONS = { timeoutMs: 30_000, scratchDir: os.tmpdir() }

/** A folder task whose starting/ holds `files`, with `solve` as its reference solution script (null: none). */
const folderTask = (files: Record<string, string>, solve: string | null, metadata: { protect?: string[]; editable?: string[] } = {}) =>
  laidTask('task-outcome-defaults-', files, { ...metadata, ...(solve === null ? {} : { solve }) })

describe("a folder task's protected paths (protectedPaths)", () => {
  test("are the task's own protect globs when it declares them, whatever starting/ holds", async () => {
    const task = await folderTask({ 'base.txt': '1\n', 'notes.md': 'n\n' }, null, { protect: ['data/**', 'base.txt'] })
    expect(await protectedPaths(task, OPTIONS)).toEqual(['data/**', 'base.txt'])
  })

  test('without protect and without a solution: every non-code file of starting/, sorted, at any depth', async () => {
    const task = await folderTask({ 'z.txt': 'z\n', 'data/b.csv': 'b\n', 'a.json': '{}\n', 'total.js': 'x\n' }, null)
    expect(await protectedPaths(task, OPTIONS)).toEqual(['a.json', 'data/b.csv', 'z.txt'])
  })

  test('leave out every code extension', async () => {
    const code = Object.fromEntries(CODE_EXTENSIONS.map((extension) => [`src/file${extension}`, 'code\n']))
    const task = await folderTask({ ...code, 'src/file.txt': 'text\n' }, null)
    expect(await protectedPaths(task, OPTIONS)).toEqual(['src/file.txt'])
  })

  test('leave out the files the reference solution changes or removes', async () => {
    const task = await folderTask({ 'base.txt': '1\n', 'notes.md': 'n\n', 'data.csv': 'a\n', 'keep.txt': 'k\n' }, "echo 2 > base.txt\nrm notes.md\nsed -i 's/a/b/' data.csv")
    expect(await protectedPaths(task, OPTIONS)).toEqual(['keep.txt'])
  })

  test('are every non-code file when the reference solution fails (what it would change is not known)', async () => {
    const task = await folderTask({ 'base.txt': '1\n', 'notes.md': 'n\n', 'total.js': 'x\n' }, 'echo 2 > base.txt\nexit 1')
    expect(await protectedPaths(task, OPTIONS)).toEqual(['base.txt', 'notes.md'])
  })

  test('leave out the editable globs, dotfiles included', async () => {
    const task = await folderTask({ 'config/.env': 'K=1\n', 'config/app.yml': 'a\n', 'base.txt': '1\n' }, null, { editable: ['config/**'] })
    expect(await protectedPaths(task, OPTIONS)).toEqual(['base.txt'])
  })

  test("are given as globs: a path's glob characters escaped", async () => {
    const task = await folderTask({ 'a(1).txt': '', 'b[2]*?.txt': '', 'c{d}!+@.txt': '', 'e\\f.txt': '' }, null)
    expect(await protectedPaths(task, OPTIONS)).toEqual(['a\\(1\\).txt', 'b\\[2\\]\\*\\?.txt', 'c\\{d\\}\\!\\+\\@.txt', 'e\\\\f.txt'])
  })

  test('are nothing for a starting/ that is not there', async () => {
    const task = await folderTask({}, null)
    await rm(task.startingDir, { recursive: true })
    expect(await protectedPaths(task, OPTIONS)).toEqual([])
  })

  test('are found once per task and solution: a second call gives the first answer, another task its own', async () => {
    const task = await folderTask({ 'base.txt': '1\n' }, 'true')
    const first = protectedPaths(task, OPTIONS)
    expect(await first).toEqual(['base.txt'])
    await writeFile(path.join(task.startingDir, 'later.txt'), 'l\n')
    expect(protectedPaths(task, OPTIONS)).toBe(first)
    expect(await protectedPaths({ ...task, solution: { kind: 'script', path: path.join(task.dir, 'other.sh') } }, OPTIONS)).toEqual(['base.txt', 'later.txt'])
    const other = await folderTask({ 'other.txt': 'o\n' }, null)
    expect(await protectedPaths(other, OPTIONS)).toEqual(['other.txt'])
  })

  test("run the reference solution in a scratch copy, removed after, with the toolchain's PATH, HOME the copy and LANG C.UTF-8", async () => {
    const check = '[ "$PATH" = /usr/local/bin:/usr/bin:/bin ] && [ "$HOME" = "$PWD" ] && [ "$LANG" = C.UTF-8 ] && echo 2 > base.txt'
    const task = await folderTask({ 'base.txt': '1\n', 'keep.txt': 'k\n' }, `pwd > "$(dirname "$0")/scratch.txt"\n${check}`)
    const options = { ...OPTIONS, toolchain: { path: '/usr/local/bin:/usr/bin:/bin', binaries: {} } as unknown as OracleToolchain }
    expect(await protectedPaths(task, options)).toEqual(['keep.txt'])
    const scratch = (await readFile(path.join(task.dir, 'scratch.txt'), 'utf8')).trim()
    expect(scratch).not.toBe(task.startingDir)
    await expect(lstat(scratch)).rejects.toThrow()
  })

  test('run the solution with PATH /usr/bin:/bin when neither the toolchain nor the harness has one', async () => {
    const task = await folderTask({ 'base.txt': '1\n', 'keep.txt': 'k\n' }, '[ "$PATH" = /usr/bin:/bin ] && echo 2 > base.txt')
    const saved = process.env.PATH
    delete process.env.PATH
    try {
      expect(await protectedPaths(task, OPTIONS)).toEqual(['keep.txt'])
    } finally {
      process.env.PATH = saved
    }
  })

  test("in the oracle's sandbox, the solution reads its own folder, which it cannot write, and writes the scratch copy", async () => {
    const task = await folderTask({ 'data.csv': 'a\n', 'notes.txt': 'n\n' }, 'here="$(dirname "$0")"\necho leaked > "$here/leak.txt" 2>/dev/null\ncp "$here/fixed.csv" data.csv')
    await writeFile(path.join(task.dir, 'fixed.csv'), 'a,b\n')
    // As a checked-out task folder is (mkdtemp makes it 0700, which the sandbox uid could not enter as root).
    await chmod(task.dir, 0o755)
    expect(await protectedPaths(task, { ...OPTIONS, sandbox: { readOnly: [] } })).toEqual(['notes.txt'])
    await expect(lstat(path.join(task.dir, 'leak.txt'))).rejects.toThrow()
    expect(await readFile(path.join(task.startingDir, 'data.csv'), 'utf8')).toBe('a\n')
  })
})
