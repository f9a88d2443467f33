import { describe, expect, test } from 'vitest'
import { concludeExperiment } from '../../src/analysis/conclude.ts'
import { reportJson } from '../../src/analysis/report-json.ts'
import { taskIds } from '../analysis/records.ts'
import { cheaperRecords, cli, fixtureExperiment, fixturePlan, outputFolder } from './analyze-fixture.ts'

/** The pilot's records with every run of task 004 deleted and seed 3 gone everywhere (a shard never merged, say). */
function holedRecords() {
  return cheaperRecords().records.filter((record) => record.task !== '004' && record.seed !== 3)
}

describe('completeness is judged against the plan spec.json keeps', () => {
  test("one task's runs deleted and one seed gone everywhere: analyze says no verdict, names what is missing and exits 1, exactly as the reporter does", async () => {
    const records = holedRecords()
    const plan = fixturePlan(taskIds(12))
    const dir = await outputFolder(records, { plan })
    const readable = await cli(['analyze', dir])
    expect(readable.exitCode, readable.all).toBe(1)
    expect(readable.stdout).toContain('**Verdict: no verdict.** No verdict: 28 of 72 planned runs are missing.')
    expect(readable.stdout).toContain('Missing: every run of task 004; seed 3 of every other task and arm.')
    const json = await cli(['analyze', dir, '--json'])
    expect(json.exitCode).toBe(1)
    expect(JSON.parse(json.stdout)).toMatchObject({ complete: false, missing: 28, tasksWithoutRuns: ['004'], seedsMissingEverywhere: [3], analysis: { kind: 'pre-registered' } })

    const conclusion = concludeExperiment({ experiment: fixtureExperiment(), records, plan })
    expect(conclusion.verdict).toBe('no verdict')
    expect(conclusion.text).toContain('Missing: every run of task 004; seed 3 of every other task and arm.')
    expect(`${json.stdout}\n`).toBe(reportJson(conclusion.report))
  })

  test('power leaves out the task the plan names but the records lack', async () => {
    const records = cheaperRecords().records.filter((record) => record.task !== '004')
    const result = await cli(['power', await outputFolder(records, { plan: fixturePlan(taskIds(12)) }), '--json'])
    expect(result.exitCode, result.all).toBe(0)
    expect(JSON.parse(result.stdout)[0]).toMatchObject({ tasks: 11, tasksLeftOut: 1 })
  })

  test('without spec.json analyze refuses, saying what to do; --no-plan analyses and labels the report "completeness not checked" and exploratory', async () => {
    const dir = await outputFolder(cheaperRecords().records, { spec: false })
    const refused = await cli(['analyze', dir, '--control', 'baseline'])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('spec.json: no such file, so nothing says which runs were planned')
    expect(refused.stderr).toContain('--no-plan')
    const unchecked = await cli(['analyze', dir, '--control', 'baseline', '--no-plan'])
    expect(unchecked.exitCode, unchecked.all).toBe(0)
    expect(unchecked.stdout).toContain('> **COMPLETENESS NOT CHECKED.**')
    expect(unchecked.stdout).toContain('> **EXPLORATORY.** This is not the pre-registered analysis')
    const json = JSON.parse((await cli(['analyze', dir, '--control', 'baseline', '--no-plan', '--json'])).stdout)
    expect(json.analysis).toMatchObject({ kind: 'exploratory', completenessChecked: false })
  })

  test('a spec.json an older task-outcome wrote without a plan: refused with the one line that says to re-run (or --no-plan)', async () => {
    const dir = await outputFolder(cheaperRecords().records, { plan: false })
    const refused = await cli(['analyze', dir])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toMatch(/spec\.json keeps no plan \(an older task-outcome wrote it\).*Re-run the experiment \(npx vitest run --project exp\)/)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    const unchecked = await cli(['analyze', dir, '--no-plan', '--json'])
    expect(unchecked.exitCode).toBe(0)
    expect(JSON.parse(unchecked.stdout).analysis.completenessChecked).toBe(false)
  })
})
