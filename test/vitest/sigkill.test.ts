import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'
import { waitFor } from '../helpers/wait-for.ts'

describe('an experiment killed mid-run', () => {
  test('loses and duplicates nothing, and the next run makes only the unrecorded runs', async () => {
    const fixture = await createExperimentFixture(simpleTasks(3, 0.4))
    const first = fixture.vitest()
    await waitFor(async () => (await fixture.runs()).length >= 3, 'three recorded runs', 60_000)
    process.kill(-first.pid!, 'SIGKILL')
    await first
    const survived = await fixture.runsText()
    const recordedBefore = survived.split('\n').filter((line) => line !== '').length
    expect(recordedBefore).toBeGreaterThanOrEqual(3)
    expect(recordedBefore).toBeLessThan(12)
    expect(survived.endsWith('\n')).toBe(true)

    const second = await fixture.vitest()
    expect(second.exitCode, second.all).toBe(0)
    expect(second.all).toContain(`${12 - recordedBefore} run(s) recorded, ${recordedBefore} already recorded`)
    const after = await fixture.runsText()
    expect(after.startsWith(survived)).toBe(true)
    const runs = await fixture.runs()
    expect(runs).toHaveLength(12)
    expect(new Set(runs.map((run) => `${run.task}/${run.arm}/${run.seed}`)).size).toBe(12)
  })
})
