import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, test } from 'vitest'
import { repoRoot, writeFolderTasks } from '../helpers/experiment-fixture.ts'

const cli = (args: string[]) => execa('npx', ['task-outcome', ...args], { cwd: repoRoot, reject: false, all: true })

describe('task-outcome validate', () => {
  test('passes the bundled examples: gold solves every task, noop none', async () => {
    const result = await cli(['validate', 'tasks/examples'])
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toMatch(/001-greeting-punctuation\s+solved\s+unsolved\s+yes/)
    expect(result.stdout).toContain('all 3 task(s) valid')
    // Without protect, the non-code files the reference solution leaves unchanged are protected.
    expect(result.stdout).toContain('protected: 001-greeting-punctuation: nothing\n')
    expect(result.stdout).toContain('protected: 002-sum-skips-header: prices.csv\n')
    expect(result.stdout).toContain('protected: 003-config-default-port: config.json\n')
    expect(result.stdout).toMatch(/experiment examples: 12 runs \(noop 6, gold 6\)/)
  })

  test('exits 1 naming a task whose verify.sh already passes on starting/, and one gold cannot solve', async () => {
    const setDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-validate-'))
    await writeFolderTasks(setDir, [
      { id: '001-fine', starting: { 'v.txt': 'no\n' }, verify: 'grep -qx yes v.txt', solve: 'echo yes > v.txt' },
      { id: '002-already-passing', starting: { 'v.txt': 'yes\n' }, verify: 'grep -qx yes v.txt', solve: 'true' },
      { id: '003-wrong-solution', starting: { 'v.txt': 'no\n' }, verify: 'grep -qx yes v.txt', solve: 'echo maybe > v.txt' },
    ])
    const result = await cli(['validate', setDir])
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/002-already-passing\s+solved\s+solved\s+NO/)
    expect(result.stdout).toContain('invalid: 002-already-passing: noop: the oracle already passes on the untouched starting point')
    expect(result.stdout).toContain('invalid: 003-wrong-solution: gold: the reference solution does not solve it')
    expect(result.stdout).toContain('2 of 3 task(s) invalid: 002-already-passing, 003-wrong-solution')
  })

  test('a malformed task set is refused with every problem named, before anything runs', async () => {
    const setDir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-validate-'))
    await writeFolderTasks(setDir, [{ id: '001-x', starting: {}, verify: 'true', metadata: { difficulty: 'impossible' } }])
    const result = await cli(['validate', setDir])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('001-x/metadata.json: difficulty:')
  })

  test('--help explains what it checks', async () => {
    const result = await cli(['validate', '--help'])
    expect(result.stdout).toContain('the reference solution (gold) solves every task')
  })
})
