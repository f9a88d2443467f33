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

describe("package.json's test fields, put back field by field", () => {
  it('removes the test fields of a package.json the agent added (the parent has none)', async () => {
    const agent = { name: 'calc', type: 'module', scripts: { test: 'echo ok' }, dependencies: { a: '1.0.0' } }
    await writeFile(path.join(copy, 'package.json'), JSON.stringify(agent))
    expect(await restoreTestFields(copy, 'package.json', null)).toEqual(['scripts', 'type'])
    expect(await readFile(path.join(copy, 'package.json'), 'utf8')).toBe(`${JSON.stringify({ name: 'calc', dependencies: { a: '1.0.0' } }, null, 2)}\n`)
  })

  it("puts the parent's file back whole when the agent's is not a JSON object: not JSON, an array, null, a string, a number", async () => {
    const base = `${JSON.stringify(BASE_PACKAGE)}\n`
    for (const agent of ['{ "name": ', '[1]', 'null', '"calc"', '3']) {
      await writeFile(path.join(copy, 'package.json'), agent)
      expect(await restoreTestFields(copy, 'package.json', base), agent).toEqual(['the whole file (not a JSON object)'])
      expect(await readFile(path.join(copy, 'package.json'), 'utf8'), agent).toBe(base)
    }
  })

  it("puts the parent's file back whole when the parent's is not a JSON object (null, a string)", async () => {
    for (const base of ['null', '"calc"']) {
      await writeFile(path.join(copy, 'package.json'), JSON.stringify(BASE_PACKAGE))
      expect(await restoreTestFields(copy, 'package.json', base), base).toEqual(['the whole file (not a JSON object)'])
      expect(await readFile(path.join(copy, 'package.json'), 'utf8'), base).toBe(base)
    }
  })

  it('leaves a broken package.json the agent added as it is (there is no parent to put back)', async () => {
    await writeFile(path.join(copy, 'package.json'), '{ "name": ')
    expect(await restoreTestFields(copy, 'package.json', null)).toEqual([])
    expect(await readFile(path.join(copy, 'package.json'), 'utf8')).toBe('{ "name": ')
  })

  it('does nothing for a file the agent removed: nothing put back, nothing written', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'test-fields-removed-'))
    expect(await restoreTestFields(dir, 'package.json', JSON.stringify(BASE_PACKAGE))).toEqual([])
    await expect(readFile(path.join(dir, 'package.json'))).rejects.toThrow()
    await rm(dir, { recursive: true, force: true })
  })
})

describe("pyproject.toml's pytest tables, put back table by table", () => {
  const write = (text: string) => writeFile(path.join(copy, 'pyproject.toml'), text)
  const read = () => readFile(path.join(copy, 'pyproject.toml'), 'utf8')

  it("writes the agent's other tables as they were, in their order, then the parent's pytest table (one holding a list too)", async () => {
    const base = '[project]\nname = "calc"\nversion = "1.0"\n\n[tool.pytest.ini_options]\nmarkers = ["slow"]\n'
    await write('[project]\nname = "calc"\nversion = "1.1"\n\n[tool.pytest.ini_options]\naddopts = ["-p", "fake_plugin"]\n\n[tool.black]\nline-length = 100\n')
    expect(await restoreTestFields(copy, 'pyproject.toml', base)).toEqual(['[tool.pytest…]'])
    expect(await read()).toBe('[project]\nname = "calc"\nversion = "1.1"\n\n[tool.black]\nline-length = 100\n\n[tool.pytest.ini_options]\nmarkers = ["slow"]\n')
  })

  it('reads an indented header as a table of its own', async () => {
    await write('[project]\nversion = "1.1"\n  [tool.pytest.ini_options]\n  addopts = "-p fake_plugin"\n')
    expect(await restoreTestFields(copy, 'pyproject.toml', '[project]\nversion = "1.0"\n  [tool.pytest.ini_options]\n  addopts = "-q"\n')).toEqual(['[tool.pytest…]'])
    expect(await read()).toBe('[project]\nversion = "1.1"\n  [tool.pytest.ini_options]\n  addopts = "-q"\n')
  })

  it('leaves the file as it is when only other tables changed, with two pytest tables the same as the parent has', async () => {
    const pytest = '[tool.pytest.ini_options]\naddopts = "-q"\n\n[[tool.pytest.plugins]]\nname = "x"\n'
    const agent = `[project]\nversion = "1.1"\n\n${pytest}`
    await write(agent)
    expect(await restoreTestFields(copy, 'pyproject.toml', `[project]\nversion = "1.0"\n\n${pytest}`)).toEqual([])
    expect(await read()).toBe(agent)
  })

  it('removes the pytest tables of a pyproject.toml the agent added, and ends what is left with a newline', async () => {
    await write('[tool.pytest.ini_options]\naddopts = "-p fake_plugin"\n\n[project]\nname = "calc"')
    expect(await restoreTestFields(copy, 'pyproject.toml', null)).toEqual(['[tool.pytest…]'])
    expect(await read()).toBe('[project]\nname = "calc"\n')
  })
})
