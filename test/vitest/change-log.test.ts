import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { cli } from '../cli/analyze-fixture.ts'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

const today = () => new Date().toISOString().slice(0, 10)

const seedsEntry = () => ({ date: today(), change: 'seeds: 1 → 2', reason: 'one seed per arm cannot tell a flaky agent from a bad one' })

async function specJson(outDir: string) {
  return JSON.parse(await readFile(path.join(outDir, 'spec.json'), 'utf8')) as {
    specSha256: string
    changeLog: unknown[]
    earlier?: Array<{ specSha256: string; changeLog: unknown[] }>
  }
}

describe('the change log of a pre-registered experiment', () => {
  test('seeds changed after recorded runs: refused without an entry (naming the change), accepted with one; the report prints it and analyses one spec hash', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1), { seeds: 1 })
    const first = await fixture.vitest()
    expect(first.exitCode, first.all).toBe(0)
    const firstRuns = await fixture.runsText()
    const firstSpec = await specJson(fixture.outDir)
    expect(firstRuns.trim().split('\n')).toHaveLength(2)

    await fixture.writeExperiment({ seeds: 2 })
    const refused = await fixture.vitest()
    expect(refused.exitCode).not.toBe(0)
    expect(refused.all).toContain('the spec of experiment "fixture" changed since its 2 recorded run(s)')
    expect(refused.all).toContain('experiment field seeds: 1 → 2')
    expect(refused.all).toContain(`add an entry to the change log in tasks/fixture/experiment.ts, dated on or after the last recorded run (${today()})`)
    expect(await fixture.runsText()).toBe(firstRuns)
    expect(await specJson(fixture.outDir)).toEqual(firstSpec)

    await fixture.writeExperiment({ seeds: 2, preregistration: { changes: [seedsEntry()] } })
    const accepted = await fixture.vitest()
    expect(accepted.exitCode, accepted.all).toBe(0)
    const runs = await fixture.runs()
    expect((await fixture.runsText()).startsWith(firstRuns)).toBe(true)
    expect(runs).toHaveLength(2 + 4)
    const hashes = [...new Set(runs.map((run) => run.specSha256))]
    expect(hashes).toHaveLength(2)
    expect(hashes[0]).toBe(firstSpec.specSha256)
    expect(accepted.all).toContain(`change log:\n    ${today()} — seeds: 1 → 2 (reason: one seed per arm`)
    expect(accepted.all).toContain('2 run(s) recorded under earlier specs are kept')

    const spec = await specJson(fixture.outDir)
    expect(spec.specSha256).toBe(hashes[1])
    expect(spec.changeLog).toEqual([seedsEntry()])
    expect(spec.earlier).toMatchObject([{ specSha256: firstSpec.specSha256, changeLog: [] }])

    const report = JSON.parse(await readFile(path.join(fixture.outDir, 'report.json'), 'utf8'))
    expect(report).toMatchObject({ complete: true, tasks: 1, seeds: 2, changeLog: [seedsEntry()], earlierSpecs: [{ specSha256: firstSpec.specSha256, runs: 2 }] })
    expect(report.secondary.gold.runs + report.secondary.noop.runs).toBe(4)
    expect(await readFile(path.join(fixture.outDir, 'report.md'), 'utf8')).toContain(`## Change log\n\n- ${today()} — seeds: 1 → 2 (reason: one seed per arm`)

    const analyzed = await cli(['analyze', fixture.outDir, '--json'])
    expect(analyzed.exitCode, analyzed.all).toBe(0)
    expect(analyzed.stderr).toContain('analysing 4 run(s)')
    expect(JSON.parse(analyzed.stdout)).toMatchObject({ seeds: 2, changeLog: [seedsEntry()], earlierSpecs: [{ runs: 2 }] })

    const copied = path.join(fixture.root, 'runs-without-spec.jsonl')
    await writeFile(copied, await fixture.runsText())
    const bare = await cli(['analyze', copied, '--control', 'noop', '--no-plan'])
    expect(bare.exitCode).toBe(1)
    expect(bare.stderr).toContain('holds runs of 2 spec hashes')
    expect(bare.stderr).toContain('runs under different specs are never pooled')
  })

  test('an entry recorded under runs is never edited or deleted; a new entry is never dated before the last run', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1), {
      seeds: 1,
      preregistration: { changes: [{ date: '2026-01-05', change: 'model pinned', reason: 'before any run' }] },
    })
    expect((await fixture.vitest()).exitCode).toBe(0)
    const before = await fixture.runsText()

    await fixture.writeExperiment({ seeds: 1, preregistration: { changes: [{ date: '2026-01-05', change: 'model pinned', reason: 'rewritten later' }] } })
    const edited = await fixture.vitest()
    expect(edited.exitCode).not.toBe(0)
    expect(edited.all).toContain('change log entry 1 (2026-01-05 — model pinned (reason: before any run)) was edited (now: 2026-01-05 — model pinned (reason: rewritten later))')

    await fixture.writeExperiment({ seeds: 1, preregistration: { changes: [] } })
    const deleted = await fixture.vitest()
    expect(deleted.exitCode).not.toBe(0)
    expect(deleted.all).toContain('change log entry 1 (2026-01-05 — model pinned (reason: before any run)) was deleted')

    await fixture.writeExperiment({
      seeds: 2,
      preregistration: {
        changes: [
          { date: '2026-01-05', change: 'model pinned', reason: 'before any run' },
          { date: '2026-01-06', change: 'seeds: 1 → 2', reason: 'backdated' },
        ],
      },
    })
    const backdated = await fixture.vitest()
    expect(backdated.exitCode).not.toBe(0)
    expect(backdated.all).toContain(`the new change log entry "2026-01-06 — seeds: 1 → 2 (reason: backdated)" is dated before the last recorded run (${today()})`)
    expect(await fixture.runsText()).toBe(before)
  })

  test('the pre-registration document is in the spec hash: an edit after the first run needs an entry, naming the document', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1), { seeds: 1, preregistration: { document: 'preregistration.md' } })
    await writeFile(path.join(fixture.setDir, 'preregistration.md'), '# Pre-registration\n\nThe claim is supported only when all three hold.\n')
    expect((await fixture.vitest()).exitCode).toBe(0)
    await writeFile(path.join(fixture.setDir, 'preregistration.md'), '# Pre-registration\n\nThe claim is supported when two of three hold.\n')
    const refused = await fixture.vitest()
    expect(refused.exitCode).not.toBe(0)
    expect(refused.all).toContain('tasks/fixture/preregistration.md changed')
  })

  test('a named pre-registration document that does not exist stops the experiment, naming the field', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1), { seeds: 1, preregistration: { document: 'missing.md' } })
    const result = await fixture.vitest()
    expect(result.exitCode).not.toBe(0)
    expect(result.all).toContain('field preregistration.document: tasks/fixture/missing.md is not a file')
    expect(await fixture.runsText()).toBe('')
  })
})
