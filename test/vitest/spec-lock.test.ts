import { appendFile, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

describe('the pre-registration lock', () => {
  test('a changed task file stops the experiment, naming the file, and leaves the records alone', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    expect((await fixture.vitest(['-t', 'gold'])).exitCode).toBe(0)
    const before = await fixture.runsText()

    await appendFile(path.join(fixture.setDir, '002-task-2', 'verify.sh'), '# tightened after the fact\n')
    const resumed = await fixture.vitest()
    expect(resumed.exitCode).not.toBe(0)
    expect(resumed.all).toContain('the spec of experiment "fixture" changed')
    expect(resumed.all).toContain('tasks/fixture/002-task-2/verify.sh changed')
    expect(await fixture.runsText()).toBe(before)
  })

  test('a changed experiment field is named with its old and new value', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1))
    expect((await fixture.vitest(['-t', 'noop'])).exitCode).toBe(0)
    await fixture.writeExperiment({ budgetUsd: 0.75 })
    const resumed = await fixture.vitest()
    expect(resumed.exitCode).not.toBe(0)
    expect(resumed.all).toContain('experiment field budgetUsd: 0.5 → 0.75')
  })

  test('records made with another agent version stop that arm and record nothing for it', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1))
    expect((await fixture.vitest(['-t', '001-task-1 › gold › seed 1'])).exitCode).toBe(0)
    const runsFile = path.join(fixture.outDir, 'runs.jsonl')
    const [line] = (await readFile(runsFile, 'utf8')).trim().split('\n')
    const record = JSON.parse(line!) as { versions: { agent: string } }
    record.versions.agent = 'gold@0.0.0-older'
    await writeFile(runsFile, `${JSON.stringify(record)}\n`)

    const resumed = await fixture.vitest()
    expect(resumed.exitCode).not.toBe(0)
    expect(resumed.all).toContain('arm gold:')
    expect(resumed.all).toContain('agent gold@0.0.0-older → gold@')
    const runs = await fixture.runs()
    expect(runs.filter((run) => run.arm === 'gold')).toHaveLength(1)
    expect(runs.filter((run) => run.arm === 'noop')).toHaveLength(2)
  })
})
