import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { planRuns } from '../../src/runs/plan.ts'
import { readSpecFile, requirePlan, specFileText, writeSpecFile } from '../../src/runs/spec-file.ts'

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

async function folder(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'task-outcome-spec-'))
}

describe('spec.json keeps the plan', () => {
  test('written once with the hash, the manifest and every planned (task, arm, seed, order); read back as written', async () => {
    const dir = await folder()
    const written = writeSpecFile(dir, { specSha256: hash, manifest, plan })
    expect(written.plan).toEqual(plan)
    expect(readSpecFile(dir)).toEqual(written)
    expect(requirePlan(dir).plan).toHaveLength(8)
    // Never rewritten: a second write (another plan) leaves the file as it was.
    writeSpecFile(dir, { specSha256: hash, manifest, plan: plan.slice(0, 2) })
    expect(await readFile(path.join(dir, 'spec.json'), 'utf8')).toBe(specFileText({ specSha256: hash, manifest, plan }))
  })

  test('an older spec.json without a plan gets the plan when its hash is this spec\'s, its hash and manifest untouched; under another hash it is left alone', async () => {
    const dir = await folder()
    const oldManifest = { ...manifest, files: { ...manifest.files, extra: 'd'.repeat(64) } }
    await writeFile(path.join(dir, 'spec.json'), `${JSON.stringify({ specSha256: hash, manifest: oldManifest }, null, 2)}\n`)
    expect(readSpecFile(dir)!.plan).toBeNull()
    expect(() => requirePlan(dir)).toThrow(/keeps no plan .*Re-run the experiment \(npx vitest run --project exp\)/)
    const upgraded = writeSpecFile(dir, { specSha256: hash, manifest, plan })
    expect(upgraded).toMatchObject({ specSha256: hash, manifest: oldManifest, plan })

    const other = await folder()
    const before = `${JSON.stringify({ specSha256: 'e'.repeat(64), manifest }, null, 2)}\n`
    await writeFile(path.join(other, 'spec.json'), before)
    writeSpecFile(other, { specSha256: hash, manifest, plan })
    expect(await readFile(path.join(other, 'spec.json'), 'utf8')).toBe(before)
  })

  test('a corrupt plan is refused naming the file and the field', async () => {
    const dir = await folder()
    const twice = [...plan, { ...plan[0]!, order: plan.length }]
    await writeFile(path.join(dir, 'spec.json'), JSON.stringify({ specSha256: hash, manifest, plan: twice }))
    expect(() => readSpecFile(dir)).toThrow(/spec\.json: field plan\.8: 001 › \S+ › seed \d is planned twice/)
    await writeFile(path.join(dir, 'spec.json'), JSON.stringify({ specSha256: hash, manifest, plan: [{ task: '001', arm: 'tool', seed: 0, order: 0 }] }))
    expect(() => readSpecFile(dir)).toThrow(/spec\.json: field plan\.0\.seed: /)
  })

  test('no spec.json: requirePlan says what to do', async () => {
    const dir = await folder()
    expect(() => requirePlan(dir)).toThrow(/spec\.json: no such file, so nothing says which runs were planned.*--no-plan/)
  })
})
