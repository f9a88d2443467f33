import { describe, expect, test } from 'vitest'
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
