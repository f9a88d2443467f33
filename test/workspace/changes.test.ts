import { cp, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { loadTask } from '../../src/tasks/load.ts'
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
