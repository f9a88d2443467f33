import { describe, expect, test } from 'vitest'
import { cheaperRecords, cli, outputFolder } from './analyze-fixture.ts'

// A small search (few simulated experiments, few tasks) so the test is quick; the numbers it checks are the
// planner's own relations, not a particular power.
const SMALL = ['--experiments', '60', '--max-tasks', '14', '--seeds', '1,2']

describe('task-outcome plan', () => {
  test('prices fixed and sequential designs from a pilot, recommends the cheapest that meets the power, and prints its spec fields', async () => {
    const dir = await outputFolder(cheaperRecords().records)
    const result = await cli(['plan', dir, ...SMALL])
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stderr).toMatch(/pilot: σ = 0\.\d+ \(\d seed\(s\)\), τ = [\d.]+ between tasks, ω = [\d.]+ between seeds/)
    expect(result.stdout).toContain('tool against baseline: α = 0.05 one-sided, power 0.8 at a 15% median cost reduction')
    expect(result.stdout).toMatch(/design\s+power\s+type I\s+runs \(null \/ alt \/ max\)\s+dollars \(null \/ alt \/ max\)/)
    expect(result.stdout).toMatch(/\d+ tasks × \d seeds?, fixed/)
    expect(result.stdout).toMatch(/recommended: \d+ tasks × \d seeds?, /)
    expect(result.stdout).toMatch(
      / {2}seeds: \d,\n {2}decision: \{ sequential: (null|\{"binding":false,.*"looks":\[.*\].*\}) \},\n {2}\/\/ and a task set of \d+ tasks \(select --count \d+\)/,
    )
  })

  test('--json gives every design with its operating characteristics under the null and the alternative, cheapest first, and a seeded search repeats exactly', async () => {
    const dir = await outputFolder(cheaperRecords().records)
    const first = await cli(['plan', dir, ...SMALL, '--json'])
    expect(first.exitCode, first.all).toBe(0)
    const plan = JSON.parse(first.stdout) as {
      designs: {
        label: string
        expectedUsd: number
        meetsPower: boolean
        null: { supported: number; expectedRuns: number; maximumRuns: number }
        alternative: { supported: number; expectedRuns: number }
      }[]
    }
    expect(plan.designs.length).toBeGreaterThan(0)
    for (const design of plan.designs) {
      expect(design.meetsPower).toBe(true)
      expect(design.alternative.supported).toBeGreaterThanOrEqual(0.8)
      expect(design.null.expectedRuns).toBeLessThanOrEqual(design.null.maximumRuns)
      expect(design.alternative.expectedRuns).toBeLessThanOrEqual(design.null.maximumRuns)
    }
    const costs = plan.designs.map((design) => design.expectedUsd)
    expect(costs).toEqual([...costs].sort((a, b) => a - b))
    const again = await cli(['plan', dir, ...SMALL, '--json'])
    expect(again.stdout).toBe(first.stdout)
  })

  test('a bad option is one line that names it and what it takes (then the usual --help hint), no stack trace', async () => {
    const dir = await outputFolder(cheaperRecords().records)
    const result = await cli(['plan', dir, '--seeds', '0,x'])
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr.trim().split('\n')[0]).toBe(
      `error: option '--seeds <list>' argument '0,x' is invalid. --seeds takes whole numbers of at least 1 separated by commas (e.g. 1,2,3), got "0,x"`,
    )
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })
})
