import { chmod, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

describe('what makes a case fail', () => {
  test('a malformed task folder stops the experiment at start, naming file and field; nothing is recorded', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    await chmod(path.join(fixture.setDir, '002-task-2', 'verify.sh'), 0o644)
    await writeFile(path.join(fixture.setDir, '001-task-1', 'metadata.json'), JSON.stringify({ id: '001', slug: 'task-1', kind: 'folder' }))
    const result = await fixture.vitest()
    expect(result.exitCode).not.toBe(0)
    expect(result.all).toContain('tasks/fixture/001-task-1/metadata.json: target_skill')
    expect(result.all).toContain('tasks/fixture/002-task-2/verify.sh: is not executable')
    expect(result.all, "a user's mistake, not a bug: no stack trace").not.toMatch(/^\s+at /m)
    expect(await fixture.runsText()).toBe('')
  })

  test('an invalid experiment field stops Vitest as it loads its config, naming file and field, with no stack trace', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1), { seeds: 'three' })
    const result = await fixture.vitest()
    expect(result.exitCode).not.toBe(0)
    expect(result.all).toContain('tasks/fixture/experiment.ts: seeds: Invalid input: expected number, received string')
    expect(result.all).not.toMatch(/^\s+at /m)
    expect(await fixture.runsText()).toBe('')
  })

  test('a harness failure left after the retries fails its case and records nothing; measured runs pass, solved or not', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1))
    await writeFile(path.join(fixture.setDir, '001-task-1', 'solution', 'solve.sh'), '#!/usr/bin/env bash\nexit 3\n')
    const result = await fixture.vitest()
    expect(result.exitCode).toBe(1)
    expect(result.all).toMatch(/FAIL .*001-task-1 › gold › seed 1/)
    expect(result.all).toContain('the reference solution')
    expect(result.all).toMatch(/2 failed \| 2 passed|2 passed \| 2 failed|Tests\s+2 failed \| 2 passed/)
    const runs = await fixture.runs()
    expect(runs.map((run) => run.arm)).toEqual(['noop', 'noop'])
    expect(runs.every((run) => run.outcome === 'unsolved')).toBe(true)
  })

  test('with failUnsolved an unsolved run fails its case but is still recorded', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1), { failUnsolved: true, seeds: 1 })
    const result = await fixture.vitest()
    expect(result.exitCode).toBe(1)
    expect(result.all).toContain('unsolved (failUnsolved is on; the run is recorded)')
    expect((await fixture.runs()).map((run) => run.outcome).sort()).toEqual(['solved', 'unsolved'])
  })
})
