import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasTestFields, restoreTestFields } from '../../src/oracle/test-fields.ts'

let copy: string
beforeAll(async () => {
  copy = await mkdtemp(path.join(os.tmpdir(), 'test-fields-'))
})
afterAll(async () => {
  await rm(copy, { recursive: true, force: true })
})

const BASE_PACKAGE = { name: 'calc', type: 'module', scripts: { test: 'node --test' }, dependencies: { a: '1.0.0' } }

describe('the test side of package.json and pyproject.toml', () => {
  it('applies to those two files anywhere in the repository', () => {
    expect(['package.json', 'packages/x/package.json', 'pyproject.toml'].every(hasTestFields)).toBe(true)
    expect(hasTestFields('src/package.json.js')).toBe(false)
  })

  it("keeps the agent's dependency change but puts back scripts, type and imports as the parent has them", async () => {
    const agent = { ...BASE_PACKAGE, type: 'commonjs', scripts: { test: 'echo 1 passing' }, imports: { '#assert': './src/fake-assert.js' }, dependencies: { a: '1.1.0' } }
    await writeFile(path.join(copy, 'package.json'), JSON.stringify(agent))
    expect(await restoreTestFields(copy, 'package.json', JSON.stringify(BASE_PACKAGE))).toEqual(['scripts', 'imports', 'type'])
    expect(JSON.parse(await readFile(path.join(copy, 'package.json'), 'utf8'))).toEqual({ ...BASE_PACKAGE, dependencies: { a: '1.1.0' } })
  })

  it('leaves a package.json whose test fields the agent did not touch as it is', async () => {
    const text = `${JSON.stringify({ ...BASE_PACKAGE, version: '2.0.0' })}\n`
    await writeFile(path.join(copy, 'package.json'), text)
    expect(await restoreTestFields(copy, 'package.json', JSON.stringify(BASE_PACKAGE))).toEqual([])
    expect(await readFile(path.join(copy, 'package.json'), 'utf8')).toBe(text)
  })

  it("replaces the agent's pytest tables of pyproject.toml with the parent's, keeping its other changes", async () => {
    const base = '[project]\nname = "calc"\nversion = "1.0"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
    const agent = '[project]\nname = "calc"\nversion = "1.1"\n\n[tool.pytest.ini_options]\naddopts = "-p fake_plugin"\n\n[tool.black]\nline-length = 100\n'
    await writeFile(path.join(copy, 'pyproject.toml'), agent)
    expect(await restoreTestFields(copy, 'pyproject.toml', base)).toEqual(['[tool.pytest…]'])
    const text = await readFile(path.join(copy, 'pyproject.toml'), 'utf8')
    expect(text).toContain('version = "1.1"')
    expect(text).toContain('[tool.black]')
    expect(text).toContain('addopts = "-q"')
    expect(text).not.toContain('fake_plugin')
  })
})
