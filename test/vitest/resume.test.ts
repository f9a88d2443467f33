import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

describe('running an experiment again', () => {
  test('records nothing new, skips every recorded run and says why', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    expect((await fixture.vitest()).exitCode).toBe(0)
    const before = await fixture.runsText()

    const again = await fixture.vitest()
    expect(again.exitCode, again.all).toBe(0)
    expect(await fixture.runsText()).toBe(before)
    expect(again.all).toContain('0 run(s) recorded, 8 already recorded (skipped, not run again)')
    expect(again.all).toMatch(/8 skipped/)
  })

  test('runs only what is missing after a filtered run', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    const first = await fixture.vitest(['-t', '001-task-1 › gold'])
    expect(first.exitCode, first.all).toBe(0)
    const filtered = await fixture.runs()
    expect(filtered.map((run) => `${run.task} › ${run.arm} › seed ${run.seed}`).sort()).toEqual(['001-task-1 › gold › seed 1', '001-task-1 › gold › seed 2'])
    expect(first.all).toMatch(/no verdict/)

    const rest = await fixture.vitest()
    expect(rest.exitCode, rest.all).toBe(0)
    expect(rest.all).toContain('6 run(s) recorded, 2 already recorded')
    const all = await fixture.runs()
    expect(all).toHaveLength(8)
    expect(all.slice(0, 2)).toEqual(filtered)
  })
})
