import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, test } from 'vitest'
import { repoRoot } from '../helpers/experiment-fixture.ts'
import { cheaperRecords, cli, outputFolder } from './analyze-fixture.ts'
import { experimentRecords } from '../analysis/records.ts'

/** A project root holding the pilot's task set (selection.json as select writes it) and its output folder, spec.json naming the experiment file. */
async function pilotProject(records: Parameters<typeof outputFolder>[0], walk: readonly { status: string }[] = []): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-power-'))
  const out = path.join(root, 'pilot-results')
  await cp(await outputFolder(records), out, { recursive: true })
  const spec = JSON.parse(await readFile(path.join(out, 'spec.json'), 'utf8'))
  await writeFile(path.join(out, 'spec.json'), JSON.stringify({ ...spec, source: { file: 'tasks/pilot/experiment.ts', exportName: 'default' } }))
  await mkdir(path.join(root, 'tasks', 'pilot'), { recursive: true })
  await writeFile(path.join(root, 'tasks', 'pilot', 'selection.json'), JSON.stringify({ seed: 20261014, count: 12, candidates: 'candidates.json', walk, tasks: [] }))
  return out
}

const powerIn = (cwd: string, args: readonly string[]) => execa(process.execPath, [path.join(repoRoot, 'bin/task-outcome.js'), 'power', ...args], { cwd, reject: false, all: true })

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
    expect(strict.tasksNeeded).toBe(Math.ceil((((2.3263478740408408 + 1.2815515655446004) * base.sigma) / 0.05) ** 2 / 0.955))
  })

  test("prints the exact select command for the confirmatory draw, --count from the pilot's spread", async () => {
    const spread = experimentRecords({ tasks: 12, seeds: 3, change: (task) => -0.4 + (task % 4) * 0.2 })
    const out = await pilotProject(spread.records)
    const root = path.dirname(out)
    const numbers = JSON.parse((await powerIn(root, [path.basename(out), '--json'])).stdout)[0]
    expect(numbers.tasksNeeded).toBeGreaterThan(5)
    const result = await powerIn(root, [path.basename(out)])
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toContain(`confirmatory run: ${numbers.tasksNeeded} new task(s)\n`)
    expect(result.stdout).toContain(
      `  npx task-outcome select --candidates tasks/pilot/candidates.json --out tasks/confirmatory --seed 20261014 --count ${numbers.tasksNeeded} --exclude-tasks-of tasks/pilot`,
    )
  })

  test('never recommends fewer tasks than the exact test needs to reach α', async () => {
    const out = await pilotProject(cheaperRecords().records)
    const root = path.dirname(out)
    const numbers = JSON.parse((await powerIn(root, [path.basename(out), '--json'])).stdout)[0]
    expect(numbers.formulaTasks).toBeLessThan(5)
    expect(numbers.tasksNeeded).toBe(5)
    const result = await powerIn(root, [path.basename(out)])
    expect(result.stdout).toContain(
      `confirmatory run: 5 new task(s) (raised from ${numbers.formulaTasks} to the exact test's floor: below 5 task(s) the one-sided exact Wilcoxon test cannot reach p < 0.05)`,
    )
    expect(result.stdout).toContain('--seed 20261014 --count 5 --exclude-tasks-of tasks/pilot')
  })
})

describe('task-outcome power: the candidates left for the confirmatory draw', () => {
  const walk = (selected: number, unreached: number) => [
    ...Array.from({ length: selected }, () => ({ status: 'selected' })),
    { status: 'excluded' },
    ...Array.from({ length: unreached }, () => ({ status: 'not reached' })),
  ]

  test("says when fewer candidates than it recommends are left unreached by the pilot's walk", async () => {
    const out = await pilotProject(cheaperRecords().records, walk(12, 3))
    const result = await powerIn(path.dirname(out), [path.basename(out)])
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toContain("only 3 candidate(s) the pilot's walk did not reach remain, fewer than the 5 it needs: harvest more first")
  })

  test('says nothing of it when enough are left', async () => {
    const out = await pilotProject(cheaperRecords().records, walk(12, 5))
    const result = await powerIn(path.dirname(out), [path.basename(out)])
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toContain('confirmatory run: 5 new task(s)')
    expect(result.stdout).not.toContain('did not reach remain')
  })
})

describe('task-outcome power: the floor and small pilots', () => {
  test("a pilot with σ ≈ 0.05: the formula says 1 task, power says at least the exact test's floor (5) and why", async () => {
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
