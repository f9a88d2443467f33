import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { writeRecordedRuns } from '../helpers/runs-file.ts'
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
    await writeRecordedRuns(runsFile, [record])

    const resumed = await fixture.vitest()
    expect(resumed.exitCode).not.toBe(0)
    expect(resumed.all).toMatch(/001-task-1 › gold › seed \d+: \S+ holds runs made with other versions/)
    expect(resumed.all).toContain('agent gold@0.0.0-older → gold@')
    const runs = await fixture.runs()
    expect(runs.filter((run) => run.arm === 'gold')).toHaveLength(1)
    expect(runs.filter((run) => run.arm === 'noop')).toHaveLength(2)
  })

  test('one changed byte of a skill stops the resume of a skill experiment, naming the skill file', async () => {
    const fixture = await createExperimentFixture(
      simpleTasks(1).map((task) => ({ ...task, metadata: { target_skill: 'alpha', irrelevant_skill: 'beta' } })),
      { arms: {}, control: 'control', seeds: 1, skills: { library: 'skills', conditions: ['control', 'target', 'negative'] } },
    )
    for (const name of ['alpha', 'beta']) {
      await mkdir(path.join(fixture.setDir, 'skills', name), { recursive: true })
      await writeFile(path.join(fixture.setDir, 'skills', name, 'SKILL.md'), `# ${name}\n`)
    }
    const first = await fixture.vitest(['-t', 'control'])
    expect(first.exitCode, first.all).toBe(0)
    expect(await fixture.runs()).toHaveLength(1)

    await writeFile(path.join(fixture.setDir, 'skills', 'beta', 'SKILL.md'), '# betA\n')
    const resumed = await fixture.vitest()
    expect(resumed.exitCode).not.toBe(0)
    expect(resumed.all).toContain('tasks/fixture/skills/beta/SKILL.md changed')
    expect(await fixture.runs()).toHaveLength(1)
  })
})
