import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { resolveOracleToolchain } from '../../src/oracle/toolchain.ts'
import { testRunnerVersion } from '../../src/runs/test-runner.ts'
import type { GitFixTask, Task } from '../../src/tasks/task.ts'
import { findPytestPython } from '../helpers/throwaway.ts'

// versions.testRunner without a prepared folder: asked of the oracle's resolved toolchain, never of the workspace.
const gitFix = (command: string) => ({ kind: 'git-fix', metadata: { test_command: command } }) as unknown as GitFixTask
// The interpreter that has pytest, by its absolute path (the oracle's PATH may find another python3 first).
const found = findPytestPython()
const python = found === null ? null : execFileSync(found, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim()

describe('the test runner a record names', () => {
  it("is node:test with the harness's Node for node --test", async () => {
    const toolchain = await resolveOracleToolchain(process.env.PATH, [])
    expect(await testRunnerVersion(gitFix('node --test --test-reporter=junit --test-reporter-destination={junit} {tests}'), null, toolchain)).toBe(`node:test ${process.version}`)
  })

  it.skipIf(python === null)(
    `is pytest's own version for python -m pytest${python === null ? ' — SKIPPED: no python3 with pytest (apt-get install python3-pytest)' : ''}`,
    async () => {
      const toolchain = await resolveOracleToolchain(process.env.PATH, [])
      expect(await testRunnerVersion(gitFix(`${python} -m pytest --junitxml={junit} {tests}`), null, toolchain)).toMatch(/^pytest \d+\.\d+/)
    },
  )

  it('is null for a command it cannot name and for a folder task', async () => {
    const toolchain = await resolveOracleToolchain(process.env.PATH, [])
    expect(await testRunnerVersion(gitFix('make test JUNIT={junit}'), null, toolchain)).toBeNull()
    expect(await testRunnerVersion({ kind: 'folder' } as unknown as Task, null, toolchain)).toBeNull()
  })
})
