import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { runFixTests } from '../../src/oracle/git-fix.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { inWorkspace } from '../helpers/in-workspace.ts'
import { NODE_TEST_COMMAND } from '../helpers/throwaway.ts'
import { harvestedTasks, type HarvestedFixture } from './git-fix-task.ts'

// The git-fix oracle copies the agent's changes into its own copy and lays the fix's tests over it, as root on the
// host. An agent (a script run as root inside the sandbox, in the real overlay workspace) replaces the source folder
// and the test folder with links to host files, its package.json with a link to a host file, leaves a FIFO and a link to a secret: the copy follows none of them,
// every host file stays as it was, and the run is judged (unsolved), never a harness failure.

const calc = (mul: string) => `export const add = (a, b) => a + b\nexport const mul = (a, b) => ${mul}\n`
const calcTest = (assertion: string) =>
  `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add, mul } from '../src/calc.js'\n` +
  `test('adds', () => assert.equal(add(2, 3), 5))\ntest('multiplies', () => ${assertion})\n`

let fixture: HarvestedFixture
let scratch: string
let hosts: string
const workspaces: Workspace[] = []

beforeAll(async () => {
  fixture = await harvestedTasks(
    [
      { subject: 'Initial calculator', files: { 'package.json': '{"type":"module"}\n', 'src/calc.js': calc('a + b'), 'test/calc.test.js': calcTest('assert.ok(true)') } },
      { subject: 'fix: multiplying adds instead', files: { 'src/calc.js': calc('a * b'), 'test/calc.test.js': calcTest('assert.equal(mul(2, 3), 6)') } },
    ],
    { testCommand: NODE_TEST_COMMAND, source: ['src/**/*.js'], tests: ['test/**/*.test.js'] },
  )
  scratch = await mkdtemp(path.join(os.tmpdir(), 'oracle-links-'))
  hosts = await mkdtemp(path.join(os.tmpdir(), 'host-files-'))
})

afterAll(async () => {
  for (const workspace of workspaces) await workspace.dispose()
  await fixture.cleanup()
  await rm(scratch, { recursive: true, force: true })
  await rm(hosts, { recursive: true, force: true })
})

/** Every host file's content, mode and times. */
async function hostState(dir: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {}
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    const info = await lstat(path.join(dir, name))
    state[name] = `${info.mode.toString(8)} ${info.mtimeMs} ${info.ctimeMs} ${info.isFile() ? await readFile(path.join(dir, name), 'utf8') : ''}`
  }
  return state
}

/** Unsandboxed the oracle judges a copy on disk; in its sandbox, an overlay whose merged tree the harness writes through its holder's namespace. */
const WAYS = [
  { where: 'a copy on disk', sandbox: undefined },
  { where: 'an overlay (sandboxed oracle)', sandbox: { readOnly: [path.dirname(path.dirname(process.execPath))] } },
]

test.each(WAYS)('links from the workspace to host files, a FIFO: the oracle copies none through into $where, every host file stays, and the run is judged', async ({ sandbox }) => {
  const task = fixture.tasks[0]!
  const host = await mkdtemp(path.join(hosts, 'host-files-'))
  await mkdir(path.join(host, 'sub'))
  await writeFile(path.join(host, 'calc.js'), 'HOST calc\n', { mode: 0o600 })
  await writeFile(path.join(host, 'calc.test.js'), 'HOST test\n', { mode: 0o600 })
  await writeFile(path.join(host, 'secret'), 'HOST secret\n', { mode: 0o600 })
  await writeFile(path.join(host, 'package.json'), '{"type":"module","scripts":{"test":"host"}}\n', { mode: 0o600 })
  const before = await hostState(host)
  const workspace = await createGitFixWorkspace(task, scratch)
  workspaces.push(workspace)
  await workspace.snapshot()
  await inWorkspace(workspace, '/bin/sh', [
    '-c',
    `rm -rf src test && ln -s ${host} src && ln -s ${host} test && mkfifo pipe && ln -s ${host}/secret leak.js && ln -s ${host}/sub lib && rm package.json && ln -s ${host}/package.json package.json`,
  ])
  expect(await workspace.changedFiles()).toEqual(['leak.js', 'lib', 'package.json', 'pipe', 'src', 'test'])
  const judgement = await runFixTests(task, workspace, {
    timeoutMs: 60_000,
    scratchDir: await mkdtemp(path.join(scratch, 'oracle-')),
    ...(sandbox === undefined ? {} : { sandbox }),
  })
  expect(judgement.solved).toBe(false)
  expect(judgement.stderr).toContain('not carried (a FIFO, socket or device): pipe')
  expect(await hostState(host)).toEqual(before)
  expect(await readdir(host)).toEqual(['calc.js', 'calc.test.js', 'package.json', 'secret', 'sub'])
})
