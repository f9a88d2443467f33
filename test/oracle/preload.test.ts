import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { NODE_PRELOAD_SOURCE, writeNodePreload } from '../../src/oracle/preload.ts'

// The oracle's preload for Node test processes: where it is written, and what it does in a real node process.

/** What `code` prints in a node process started with the preload. */
function withPreload(preload: string, code: string): string {
  return execFileSync(process.execPath, [`--require=${preload}`, '-e', code], { encoding: 'utf8', env: { PATH: process.env.PATH } }).trim()
}

describe('writeNodePreload', () => {
  test('writes the preload read-only as oracle-preload.cjs into the folder, made if missing', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-preload-'))
    const file = await writeNodePreload(path.join(root, 'a', 'b'))
    expect(file).toBe(path.join(root, 'a', 'b', 'oracle-preload.cjs'))
    expect(await readFile(file, 'utf8')).toBe(NODE_PRELOAD_SOURCE)
    expect((await stat(file)).mode & 0o777).toBe(0o444)
    await rm(root, { recursive: true, force: true })
  })
})

describe('the preload in a node process', () => {
  const frozen = "console.log(['node:assert', 'node:assert/strict', 'node:test'].map((id) => Object.isFrozen(require(id))).join())"

  test('freezes node:assert, node:assert/strict and node:test, so an assignment to them is lost', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-preload-'))
    const file = await writeNodePreload(root)
    expect(withPreload(file, frozen)).toBe('true,true,true')
    expect(withPreload(file, "const a = require('node:assert'); a.ok = () => {}; a.strictEqual = 1; console.log(typeof a.ok, typeof a.strictEqual)")).toBe('function function')
    await rm(root, { recursive: true, force: true })
  })

  test.each([
    ['in its own process (the default isolation)', []],
    ["in the runner's process (--experimental-test-isolation=none)", ['--experimental-test-isolation=none']],
  ])('freezes them in a test file that node --test runs %s, loaded through NODE_OPTIONS', async (_where, flags) => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-preload-'))
    const file = await writeNodePreload(root)
    const testFile = path.join(root, 'frozen.test.js')
    await writeFile(testFile, `require('node:test')('frozen', () => { ${frozen.replace('console.log', 'process.stdout.write')} })\n`)
    const out = execFileSync(process.execPath, ['--test', ...flags, testFile], { encoding: 'utf8', env: { PATH: process.env.PATH, NODE_OPTIONS: `--require=${file}` } })
    expect(out).toContain('true,true,true')
    await rm(root, { recursive: true, force: true })
  })
})
