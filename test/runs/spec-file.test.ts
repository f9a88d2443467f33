import { mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { planRuns } from '../../src/runs/plan.ts'
import { readSpecFile, requirePlan } from '../../src/runs/spec-file.ts'
import { reviseSpecRecord, type RecordedSpec } from '../../src/runs/spec-record.ts'

const hash = 'b'.repeat(64)
const manifest = { experiment: { name: 'exp', arms: { baseline: {}, tool: {} } }, files: { 'tasks/x/001/task.md': 'c'.repeat(64) } }
const plan = planRuns(
  [
    { id: '001', arms: ['baseline', 'tool'] },
    { id: '002', arms: ['baseline', 'tool'] },
  ],
  2,
  7,
)
const source = { file: 'tasks/x/experiment.ts', exportName: 'default' }

async function folderWith(spec: unknown): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-spec-'))
  await writeFile(path.join(dir, 'spec.json'), `${JSON.stringify(spec, null, 2)}\n`)
  return dir
}

describe('spec.json keeps the plan', () => {
  test('the writer keeps every planned (task, arm, seed, order) with the spec; the reader gives it back in order', async () => {
    const written = reviseSpecRecord(undefined, { specSha256: hash, manifest, changeLog: [], source, plan }, 0, new Date(0))
    const dir = await folderWith(written)
    expect(readSpecFile(dir)!.plan).toEqual(plan)
    expect(requirePlan(dir).plan).toHaveLength(8)
  })

  test("an older spec.json without a plan gets the plan when its hash is this spec's, its hash and manifest untouched", async () => {
    const oldManifest = { ...manifest, files: { ...manifest.files, extra: 'd'.repeat(64) } }
    const old = { specSha256: hash, manifest: oldManifest, changeLog: [], source } as unknown as RecordedSpec
    const dir = await folderWith(old)
    expect(readSpecFile(dir)!.plan).toBeNull()
    expect(() => requirePlan(dir)).toThrow(/keeps no plan .*Re-run the experiment \(npx vitest run --project exp\)/)
    const upgraded = reviseSpecRecord(old, { specSha256: hash, manifest, changeLog: [], source, plan }, 12, new Date(0))
    expect(upgraded).toMatchObject({ specSha256: hash, manifest: oldManifest, plan })
    // With its plan, nothing is rewritten.
    expect(reviseSpecRecord(upgraded, { specSha256: hash, manifest, changeLog: [], source, plan }, 12, new Date(0))).toBeUndefined()
  })

  test('a corrupt plan is refused naming the file and the field', async () => {
    const twice = await folderWith({ specSha256: hash, manifest, plan: [...plan, { ...plan[0]!, order: plan.length }] })
    expect(() => readSpecFile(twice)).toThrow(/spec\.json: field plan\.8: 001 › \S+ › seed \d is planned twice/)
    const bad = await folderWith({ specSha256: hash, manifest, plan: [{ task: '001', arm: 'tool', seed: 0, order: 0 }] })
    expect(() => readSpecFile(bad)).toThrow(/spec\.json: field plan\.0\.seed: /)
  })

  test('no spec.json: requirePlan says what to do', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-spec-'))
    expect(() => requirePlan(dir)).toThrow(/spec\.json: no such file, so nothing says which runs were planned.*--no-plan/)
  })
})
