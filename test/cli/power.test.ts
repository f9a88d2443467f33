import { describe, expect, test } from 'vitest'
import { experimentRecords } from '../analysis/records.ts'
import { cheaperRecords, cli, outputFolder } from './analyze-fixture.ts'

describe('task-outcome power', () => {
  test('prints σ and the tasks needed with the formula and its numbers', async () => {
    const dir = await outputFolder(cheaperRecords().records)
    const result = await cli(['power', `${dir}/runs.jsonl`])
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toContain('tool against baseline: 12 task(s)')
    expect(result.stdout).toMatch(/σ = 0\.\d+/)
    expect(result.stdout).toContain('n = ⌈((z₁₋α + z_power) · σ / δ)² / 0.955⌉')
    expect(result.stdout).toMatch(/= ⌈\(\(1\.6449 \+ 0\.8416\) · 0\.\d+ \/ 0\.15\)² \/ 0\.955⌉/)
    expect(result.stdout).toMatch(/= ⌈[\d.]+⌉ = \d+ task\(s\)/)
  })

  test('--effect, --power and --alpha change the size the way they should; --json gives the numbers', async () => {
    const dir = await outputFolder(cheaperRecords().records)
    const base = JSON.parse((await cli(['power', dir, '--json'])).stdout)[0]
    const strict = JSON.parse((await cli(['power', dir, '--json', '--effect', '0.05', '--power', '0.9', '--alpha', '0.01'])).stdout)[0]
    expect(base).toMatchObject({ effect: 0.15, power: 0.8, alpha: 0.05, tasks: 12 })
    expect(strict.sigma).toBe(base.sigma)
    expect(strict.tasksNeeded).toBeGreaterThan(base.tasksNeeded)
    expect(strict.tasksNeeded).toBe(Math.ceil(((2.3263478740408408 + 1.2815515655446004) * base.sigma / 0.05) ** 2 / 0.955))
  })
})

describe('task-outcome power: the floor and small pilots', () => {
  test('a pilot with σ ≈ 0.05: the formula says 1 task, power says at least the exact test\'s floor (5) and why', async () => {
    const { records } = experimentRecords({ tasks: 8, change: (task) => -0.3 + (task % 2 === 0 ? 0.05 : -0.05) })
    const dir = await outputFolder(records)
    const json = JSON.parse((await cli(['power', dir, '--json'])).stdout)[0]
    expect(json.sigma).toBeLessThan(0.07)
    expect(json).toMatchObject({ formulaTasks: 1, minimumTasks: 5, tasksNeeded: 5, fewTasks: false })
    const text = (await cli(['power', dir])).stdout
    expect(text).toContain('floor: the exact test cannot reach p < 0.05 with fewer than 5 tasks with a non-zero difference, so n is raised to 5')
  })

  test('a pilot of 4 tasks gets a warning', async () => {
    const dir = await outputFolder(experimentRecords({ tasks: 4, change: (task) => -0.2 - task * 0.05 }).records)
    const text = (await cli(['power', dir])).stdout
    expect(text).toContain('warning: σ rests on 4 task(s), fewer than 5')
  })
})
