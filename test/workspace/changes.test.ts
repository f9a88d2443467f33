import { chmod, cp, lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { sha256 } from '../../src/shared/sha256.ts'
import { loadTask } from '../../src/tasks/load.ts'
import { baseContent, baseState, candidatePaths, ignoredPath, pathState, readChanges, snapshotTrees, type WorkspaceTrees } from '../../src/workspace/changes.ts'
import { createWorkspace } from '../../src/workspace/index.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { writeFolderTasks } from '../helpers/experiment-fixture.ts'
import { inWorkspace } from '../helpers/in-workspace.ts'

// The agent's changes read from the overlay's upper layer, and from a plain copy (sandbox: 'none', or a machine that
// cannot mount an overlay): edits, deletions, a folder deleted and made again (opaque in the overlay), a mode change
// and a new link; diff.patch applied to the template gives back the agent's tree.

const STARTING = {
  'README.md': '# r\n',
  'src/a.js': 'a\n',
  'src/b.js': 'b\n',
  'lib/x.js': 'x\n',
  'lib/deep/y.js': 'y\n',
  'run.sh': 'echo run\n',
}

const AGENT = [
  'echo changed > src/a.js',
  'rm src/b.js',
  'rm -rf lib && mkdir lib && echo new > lib/z.js',
  'chmod +x run.sh',
  'ln -s src/a.js link.js',
  'echo added > NOTES.md',
  'git config core.fsmonitor true',
].join(' && ')

const EXPECTED = ['NOTES.md', 'lib/deep/y.js', 'lib/x.js', 'lib/z.js', 'link.js', 'run.sh', 'src/a.js', 'src/b.js']

let root: string
/** A fresh folder below this test's root (removed with it). */
let made = 0
const tmpRoot = () => path.join(root, `trees-${made++}`)
let workspace: Workspace | undefined
const savedOverlay = process.env.TASK_OUTCOME_OVERLAY

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'workspace-changes-'))
  await writeFolderTasks(root, [{ id: '001-changes', starting: STARTING, verify: 'true' }])
})
afterEach(async () => {
  if (savedOverlay === undefined) delete process.env.TASK_OUTCOME_OVERLAY
  else process.env.TASK_OUTCOME_OVERLAY = savedOverlay
  await workspace?.dispose()
  workspace = undefined
  await rm(root, { recursive: true, force: true })
})

describe.each([
  ['an overlay', { overlay: true }, 'on'],
  ['a copy where no overlay can be mounted', { overlay: true }, 'off'],
  ['a plain copy', { overlay: false }, 'on'],
] as const)("the agent's changes in %s", (_name, options, overlay) => {
  beforeEach(() => {
    process.env.TASK_OUTCOME_OVERLAY = overlay
  })

  test('list every added, changed, deleted, re-made, mode-changed and linked path, and nothing under .git', async () => {
    const task = await loadTask(path.join(root, '001-changes'), root)
    workspace = await createWorkspace(task, path.join(root, 'ws'), options)
    expect(workspace.overlay === undefined).toBe(!options.overlay || overlay === 'off')
    await workspace.snapshot()
    await inWorkspace(workspace, '/bin/sh', ['-c', AGENT])
    expect(await workspace.changedFiles()).toEqual(EXPECTED)
  })

  test("make a diff.patch that turns the template into the agent's tree", async () => {
    const task = await loadTask(path.join(root, '001-changes'), root)
    workspace = await createWorkspace(task, path.join(root, 'ws'), options)
    await workspace.snapshot()
    await inWorkspace(workspace, '/bin/sh', ['-c', AGENT])
    const patch = await workspace.diff()
    const copy = path.join(root, 'copy')
    await cp(workspace.template, copy, { recursive: true, verbatimSymlinks: true })
    await rm(path.join(copy, '.git'), { recursive: true, force: true })
    const applied = await execa('git', ['apply', '--whitespace=nowarn', '-'], {
      cwd: copy,
      input: patch,
      reject: false,
      env: { PATH: process.env.PATH!, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', HOME: root },
    })
    expect(applied.exitCode, applied.stderr).toBe(0)
    const listing = await execa('find', ['.', '-mindepth', '1', '-not', '-path', './.git*', '-printf', '%y %m %p %l\n'], { cwd: copy })
    const agentSide = await inWorkspace(workspace, '/usr/bin/find', ['.', '-mindepth', '1', '-not', '-path', './.git*', '-printf', '%y %m %p %l\n'])
    expect(listing.stdout.split('\n').sort()).toEqual(agentSide.split('\n').sort())
    expect(await readFile(path.join(copy, 'lib/z.js'), 'utf8')).toBe('new\n')
  })

  test('count a folder replaced by a link to host files, or deleted, as one change, and never read, write or chmod through the link', async () => {
    const task = await loadTask(path.join(root, '001-changes'), root)
    const host = path.join(root, 'host')
    await mkdir(host)
    await writeFile(path.join(host, 'a.js'), 'HOST SECRET\n', { mode: 0o600 })
    const hostBefore = await lstat(path.join(host, 'a.js'))
    workspace = await createWorkspace(task, path.join(root, 'ws'), options)
    // Setup changed src/a.js, so the base snapshot holds a path below the folder the agent then replaces.
    await inWorkspace(workspace, '/bin/sh', ['-c', 'echo setup > src/a.js'])
    await workspace.snapshot()
    await inWorkspace(workspace, '/bin/sh', ['-c', `rm -rf src && ln -s ${host} src && rm -rf lib/deep`])
    const deleted = options.overlay && overlay === 'on' ? 'lib/deep' : 'lib/deep/y.js'
    expect(await workspace.changedFiles()).toEqual([deleted, 'src'])
    const patch = await workspace.diff()
    expect(patch).not.toContain('HOST SECRET')
    expect(patch).toContain('+++ /dev/null')
    expect(patch).toMatch(/diff --git a\/lib\/deep\/y\.js b\/lib\/deep\/y\.js\ndeleted file/)
    expect(patch).toMatch(/diff --git a\/src b\/src\nnew file mode 120000/)
    expect(await readFile(path.join(host, 'a.js'), 'utf8')).toBe('HOST SECRET\n')
    const hostAfter = await lstat(path.join(host, 'a.js'))
    expect([hostAfter.mode, hostAfter.mtimeMs, hostAfter.ctimeMs]).toEqual([hostBefore.mode, hostBefore.mtimeMs, hostBefore.ctimeMs])
  })
})

/**
 * A tree laid out by hand under `root` (an overlay's layers and the merged tree it would show, or a plain copy and its
 * template): a string is a file's content, `{ link }` a symbolic link, `'whiteout'` an overlay whiteout (a character
 * device 0/0; the harness runs as root, as these tests do), `{ device: 'major minor' }` another character device and
 * `'fifo'` a named pipe. Parents are made as needed.
 */
type Entry = string | { link: string } | { device: string } | 'whiteout' | 'fifo'
async function lay(root: string, entries: Record<string, Entry>): Promise<string> {
  await mkdir(root, { recursive: true })
  for (const [relative, entry] of Object.entries(entries)) {
    const at = path.join(root, relative)
    await mkdir(path.dirname(at), { recursive: true })
    if (typeof entry === 'object' && 'link' in entry) await symlink(entry.link, at)
    else if (typeof entry === 'object') await execa('mknod', [at, 'c', ...entry.device.split(' ')])
    else if (entry === 'whiteout') await execa('mknod', [at, 'c', '0', '0'])
    else if (entry === 'fifo') await execa('mknod', [at, 'p'])
    else await writeFile(at, entry)
  }
  return root
}

const file = (content: string, executable = false) => ({ kind: 'file', executable, sha256: sha256(content) }) as const

describe("ignoredPath: git's own folder at the workspace root, and nothing else", () => {
  test('ignores .git and everything below it', () => {
    expect(ignoredPath('.git')).toBe(true)
    expect(ignoredPath('.git/config')).toBe(true)
    expect(ignoredPath('.git/hooks/pre-commit')).toBe(true)
  })

  test('counts names that only start with .git, a .git folder below the root, and every other path', () => {
    for (const relative of ['.gitignore', '.github/workflows/ci.yml', 'src/.git/config', 'src/a.js', 'a.git/x']) expect(ignoredPath(relative)).toBe(false)
  })
})

describe('pathState: what a path is, following no link', () => {
  test("reads a file's SHA-256 and whether any execute bit is set, a link's target, a folder, and null for a missing path", async () => {
    const root = await lay(path.join(tmpRoot(), 'states'), { 'a.js': 'a\n', 'run.sh': 'echo\n', 'owner-only.sh': 'echo\n', 'link.js': { link: 'src/a.js' }, 'src/b.js': 'b\n' })
    await chmod(path.join(root, 'run.sh'), 0o755)
    await chmod(path.join(root, 'owner-only.sh'), 0o744)
    expect(await pathState(root, 'a.js')).toEqual(file('a\n'))
    expect(await pathState(root, 'run.sh')).toEqual(file('echo\n', true))
    expect(await pathState(root, 'owner-only.sh')).toEqual(file('echo\n', true))
    expect(await pathState(root, 'link.js')).toEqual({ kind: 'link', target: 'src/a.js' })
    expect(await pathState(root, 'src')).toEqual({ kind: 'directory' })
    expect(await pathState(root, 'missing.js')).toBeNull()
  })

  test('is null below a link, even a link to a real folder', async () => {
    const root = await lay(path.join(tmpRoot(), 'behind'), { 'src/b.js': 'b\n', alias: { link: 'src' } })
    expect(await pathState(root, 'alias/b.js')).toBeNull()
  })

  test('is null for a whiteout (a character device 0/0: not there), and other for any other device or a named pipe', async () => {
    const root = await lay(path.join(tmpRoot(), 'devices'), { 'gone.js': 'whiteout', null: { device: '1 3' }, pipe: 'fifo' })
    expect(await pathState(root, 'gone.js')).toBeNull()
    expect(await pathState(root, 'null')).toEqual({ kind: 'other' })
    expect(await pathState(root, 'pipe')).toEqual({ kind: 'other' })
  })
})

describe('candidatePaths: the paths that may differ from the base', () => {
  test('a plain copy: every non-folder of either tree, .git left out', async () => {
    const base = tmpRoot()
    const lower = await lay(path.join(base, 'lower'), { 'a.js': 'a\n', 'deleted.js': 'd\n', 'lib/x.js': 'x\n', 'link.js': { link: 'a.js' }, '.git/config': '' })
    const merged = await lay(path.join(base, 'merged'), {
      'a.js': 'A\n',
      'added.js': 'n\n',
      'lib/x.js': 'x\n',
      'new/deep/n.js': 'n\n',
      'link.js': { link: 'a.js' },
      '.git/config': '[core]\n',
    })
    expect(await candidatePaths({ merged, lower })).toEqual(new Set(['a.js', 'added.js', 'deleted.js', 'lib/x.js', 'link.js', 'new/deep/n.js']))
  })

  test("a plain copy whose one tree is missing: the other tree's files", async () => {
    const base = tmpRoot()
    const lower = await lay(path.join(base, 'lower'), { 'a.js': 'a\n' })
    const merged = await lay(path.join(base, 'merged'), { 'b.js': 'b\n' })
    expect(await candidatePaths({ merged: path.join(base, 'none'), lower })).toEqual(new Set(['a.js']))
    expect(await candidatePaths({ merged, lower: path.join(base, 'none') })).toEqual(new Set(['b.js']))
  })

  test('an overlay: what the upper layer holds, a folder over a lower file with it, and every lower file below an opaque folder', async () => {
    const base = tmpRoot()
    const lower = await lay(path.join(base, 'lower'), {
      'a.js': 'a\n',
      'gone.js': 'g\n',
      conf: 'c\n',
      'lib/x.js': 'x\n',
      'lib/keep/w.js': 'w\n',
      'lib/keep/y.js': 'y\n',
      'all/p.js': 'p\n',
      'all/d/q.js': 'q\n',
      'all/d/r.js': 'r\n',
      'opaque/o1.js': 'o\n',
      'opaque/sub/o2.js': 'o\n',
      '.git/config': '',
    })
    const upper = await lay(path.join(base, 'upper'), {
      'a.js': 'A\n', // edited
      'gone.js': 'whiteout', // deleted
      'new/n.js': 'n\n', // a new folder: its file is the change, not the folder
      'conf/c.js': 'c\n', // a folder over a lower file: the folder is a change, and its file
      'lib/z.js': 'z\n', // a file added to a lower folder (not opaque: the merged tree shows lib/x.js)
      'lib/keep/y.js': 'Y\n', // edited below it
      'all/p.js': 'P\n', // every name of the lower all/ is in the upper one: nothing to probe, not opaque
      'all/d/q.js': 'Q\n',
      'opaque/n2.js': 'n\n', // made again: opaque, hiding the lower files
      '.git/config': '[core]\n',
    })
    const merged = await lay(path.join(base, 'merged'), {
      'a.js': 'A\n',
      'new/n.js': 'n\n',
      'conf/c.js': 'c\n',
      'lib/x.js': 'x\n',
      'lib/z.js': 'z\n',
      'lib/keep/w.js': 'w\n',
      'lib/keep/y.js': 'Y\n',
      'all/p.js': 'P\n',
      'all/d/q.js': 'Q\n',
      'all/d/r.js': 'r\n',
      'opaque/n2.js': 'n\n',
      '.git/config': '[core]\n',
    })
    expect(await candidatePaths({ merged, lower, upper })).toEqual(
      new Set(['a.js', 'gone.js', 'new/n.js', 'conf', 'conf/c.js', 'lib/z.js', 'lib/keep/y.js', 'all/p.js', 'all/d/q.js', 'opaque/n2.js', 'opaque/o1.js', 'opaque/sub/o2.js']),
    )
  })

  test('an overlay whose upper layer is missing: none', async () => {
    const base = tmpRoot()
    const lower = await lay(path.join(base, 'lower'), { 'a.js': 'a\n' })
    expect(await candidatePaths({ merged: lower, lower, upper: path.join(base, 'none') })).toEqual(new Set())
  })
})

describe('snapshotTrees, baseState, baseContent and readChanges: changes measured from the state after setup', () => {
  /** A plain copy: the template, and the workspace as setup left it (a.js rewritten, gone.js deleted). */
  async function setUp(): Promise<WorkspaceTrees> {
    const base = tmpRoot()
    const lower = await lay(path.join(base, 'lower'), { 'a.js': 'a\n', 'b.js': 'b\n', 'gone.js': 'g\n', 'link.js': { link: 'a.js' }, conf: 'c\n', 'lib/x.js': 'x\n' })
    const merged = await lay(path.join(base, 'merged'), { 'a.js': 'setup\n', 'b.js': 'b\n', 'link.js': { link: 'a.js' }, conf: 'c\n', 'lib/x.js': 'x\n' })
    return { merged, lower }
  }

  test("the snapshot holds each candidate's state after setup, with a file's bytes, and a deleted path as null", async () => {
    const trees = await setUp()
    const snapshot = await snapshotTrees(trees)
    expect(new Map(snapshot.states)).toEqual(
      new Map<string, unknown>([
        ['a.js', { state: file('setup\n'), content: Buffer.from('setup\n') }],
        ['b.js', { state: file('b\n'), content: Buffer.from('b\n') }],
        ['gone.js', { state: null }],
        ['link.js', { state: { kind: 'link', target: 'a.js' } }],
        ['conf', { state: file('c\n'), content: Buffer.from('c\n') }],
        ['lib/x.js', { state: file('x\n'), content: Buffer.from('x\n') }],
      ]),
    )
    expect(snapshot.states.get('link.js')).not.toHaveProperty('content')
  })

  test("the base of a path is the snapshot's when it holds one, else the template's", async () => {
    const trees = await setUp()
    const snapshot = await snapshotTrees(trees)
    await writeFile(path.join(trees.merged, 'a.js'), 'agent\n')
    expect(await baseState(trees, snapshot, 'a.js')).toEqual(file('setup\n'))
    expect(await baseContent(trees, snapshot, 'a.js')).toEqual(Buffer.from('setup\n'))
    expect(await baseContent(trees, snapshot, 'link.js')).toBeNull()
    expect(await baseContent(trees, snapshot, 'gone.js')).toBeNull()
    const none = { states: new Map() }
    expect(await baseState(trees, none, 'a.js')).toEqual(file('a\n'))
    expect(await baseContent(trees, none, 'a.js')).toEqual(Buffer.from('a\n'))
    expect(await baseContent(trees, none, 'link.js')).toBeNull()
  })

  test("a file put back to the template's content after setup changed it is a change; one setup changed and the agent left is not", async () => {
    const trees = await setUp()
    const snapshot = await snapshotTrees(trees)
    await writeFile(path.join(trees.merged, 'a.js'), 'a\n')
    expect(await readChanges(trees, snapshot)).toEqual([{ path: 'a.js', before: file('setup\n'), after: file('a\n') }])
    await writeFile(path.join(trees.merged, 'a.js'), 'setup\n')
    expect(await readChanges(trees, snapshot)).toEqual([])
  })

  test('a file replaced by a folder is a change and so is each file in it; a folder replaced by a file is one change', async () => {
    const trees = await setUp()
    const snapshot = await snapshotTrees(trees)
    await rm(path.join(trees.merged, 'conf'))
    await lay(trees.merged, { 'conf/c.js': 'c\n' })
    await rm(path.join(trees.merged, 'lib'), { recursive: true })
    await writeFile(path.join(trees.merged, 'lib'), 'now a file\n')
    expect(await readChanges(trees, snapshot)).toEqual([
      { path: 'conf', before: file('c\n'), after: { kind: 'directory' } },
      { path: 'conf/c.js', before: null, after: file('c\n') },
      { path: 'lib', before: { kind: 'directory' }, after: file('now a file\n') },
    ])
  })

  // Only a path below a replaced one is folded into it; a name with spaces is a name (this one is also the
  // placeholder Stryker puts in an array it mutates, so the list of replaced paths is shown to start empty).
  test('a new file below a new folder whose name has spaces is a change of its own', async () => {
    const trees = await setUp()
    const snapshot = await snapshotTrees(trees)
    await lay(trees.merged, { 'Stryker was here/n.js': 'n\n' })
    expect(await readChanges(trees, snapshot)).toEqual([{ path: 'Stryker was here/n.js', before: null, after: file('n\n') }])
  })
})
