import { mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { buildSpecManifest, canonicalJson, describeSpecChanges, specSha256 } from '../../src/experiment/hash.ts'
import { parseExperiment } from '../../src/experiment/parse.ts'

const spec = parseExperiment({ name: 'x', agent: { kind: 'noop' }, arms: { a: {}, b: {} }, control: 'a', budgetUsd: 1 }, 'experiment.ts')

async function files(contents: Record<string, string>) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-hash-'))
  for (const [name, content] of Object.entries(contents)) await writeFile(path.join(root, name), content)
  return { root, paths: Object.keys(contents).map((name) => path.join(root, name)) }
}

describe('the spec hash', () => {
  test('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}')
  })

  test('is stable for the same spec and files, and changes with one byte of one file', async () => {
    const one = await files({ 'verify.sh': 'exit 0\n', 'task.md': 'Fix it.\n' })
    const two = await files({ 'verify.sh': 'exit 0\n', 'task.md': 'Fix it.\n' })
    const changed = await files({ 'verify.sh': 'exit 1\n', 'task.md': 'Fix it.\n' })
    const hash = async (f: { root: string; paths: string[] }) => specSha256(await buildSpecManifest(spec, f.root, f.paths))
    expect(await hash(one)).toBe(await hash(two))
    expect(await hash(changed)).not.toBe(await hash(one))
  })

  test('ignores maxWorkers and output, which do not change what is measured', async () => {
    const f = await files({ 'task.md': 'x' })
    const other = { ...spec, maxWorkers: 8, output: 'elsewhere' }
    expect(specSha256(await buildSpecManifest(other, f.root, f.paths))).toBe(specSha256(await buildSpecManifest(spec, f.root, f.paths)))
  })

  test('names what changed: fields with old and new values, files changed, added and removed', async () => {
    const before = await buildSpecManifest(spec, '/', [])
    const after = await buildSpecManifest({ ...spec, seeds: 5 }, '/', [])
    const withFiles = (files: Record<string, string>) => ({ ...before, files })
    expect(describeSpecChanges(before, after)).toEqual(['experiment field seeds: 3 → 5'])
    expect(describeSpecChanges(withFiles({ a: '1', b: '2' }), withFiles({ a: '9', c: '3' }))).toEqual(['a changed', 'b removed', 'c added'])
  })
})
