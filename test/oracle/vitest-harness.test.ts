import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { prepareVitestHarness, runsVitest, taskVitestConfig, VITEST_SETUP_SOURCE, withHarnessVitestConfig } from '../../src/oracle/vitest-harness.ts'

// The harness's Vitest configuration: which commands get it, which task config it loads, how the command is
// rewritten, and the files it writes (a real Vitest run through it is git-fix-vitest.test.ts's).

const scratch = () => mkdtemp(path.join(os.tmpdir(), 'task-outcome-vitest-harness-'))

describe('runsVitest: whether a command starts Vitest', () => {
  test.each([
    ['vitest run', true],
    ['npx vitest', true],
    ['node_modules/.bin/vitest run --reporter=junit', true],
    ['node node_modules/vitest/vitest.mjs run', true],
    ['pnpm exec vitest\trun', true],
    ['pytest {tests}', false],
    ['vitestx run', false],
    ['myvitest run', false],
    ['node --test', false],
  ])('%j: %s', (command, expected) => {
    expect(runsVitest(command)).toBe(expected)
  })
})

describe("taskVitestConfig: the task's own config file, as Vitest would find it", () => {
  test.each([
    ['vitest run --config=conf/a.ts', 'conf/a.ts'],
    ['vitest run --config conf/a.ts', 'conf/a.ts'],
    ['vitest run -c conf/a.ts', 'conf/a.ts'],
    ['vitest run -c=conf/a.ts', 'conf/a.ts'],
    ["vitest run --config='conf/a b.ts'", 'conf/a b.ts'],
    ['vitest run --config "conf/a b.ts"', 'conf/a b.ts'],
    ['vitest run --config=\'conf/a.ts"', '\'conf/a.ts"'],
    ["vitest run --config=conf/a'b'", "conf/a'b'"],
    ['vitest run --configLoader=runner --config=conf/a.ts', 'conf/a.ts'],
    ['vitest run --configLoader runner -c conf/a.ts', 'conf/a.ts'],
  ])('%j names %j', async (command, expected) => {
    expect(await taskVitestConfig(command, await scratch())).toBe(expected)
  })

  test('without --config, the first of vitest.config.* and vite.config.* in the folder, in the order Vitest looks', async () => {
    const cwd = await scratch()
    expect(await taskVitestConfig('vitest run', cwd)).toBeNull()
    expect(await taskVitestConfig('vitest run --configLoader=runner', cwd)).toBeNull()
    await writeFile(path.join(cwd, 'vite.config.cjs'), '')
    expect(await taskVitestConfig('vitest run', cwd)).toBe('vite.config.cjs')
    await writeFile(path.join(cwd, 'vite.config.ts'), '')
    expect(await taskVitestConfig('vitest run', cwd)).toBe('vite.config.ts')
    await writeFile(path.join(cwd, 'vitest.config.mjs'), '')
    expect(await taskVitestConfig('vitest run', cwd)).toBe('vitest.config.mjs')
    await writeFile(path.join(cwd, 'vitest.config.mts'), '')
    expect(await taskVitestConfig('vitest run', cwd)).toBe('vitest.config.mts')
    await symlink('missing.ts', path.join(cwd, 'vitest.config.ts'))
    expect(await taskVitestConfig('vitest run', cwd)).toBe('vitest.config.ts')
    expect(await taskVitestConfig('vitest run -c other.ts', cwd)).toBe('other.ts')
    await rm(cwd, { recursive: true, force: true })
  })

  test.each(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'])('finds vitest.config%s and vite.config%s', async (ext) => {
    const cwd = await scratch()
    await writeFile(path.join(cwd, `vite.config${ext}`), '')
    expect(await taskVitestConfig('vitest', cwd)).toBe(`vite.config${ext}`)
    await writeFile(path.join(cwd, `vitest.config${ext}`), '')
    expect(await taskVitestConfig('vitest', cwd)).toBe(`vitest.config${ext}`)
    await rm(cwd, { recursive: true, force: true })
  })
})

describe("withHarnessVitestConfig: the command with the harness's config in place of its own", () => {
  // The command's own config arguments are cut out with their value; the space before each stays.
  test.each([
    ['vitest run {tests}', 'vitest run --config=/h/c.mjs --configLoader=native {tests}'],
    ['npx vitest', 'npx vitest --config=/h/c.mjs --configLoader=native'],
    ['vitest.mjs run', 'vitest.mjs run --config=/h/c.mjs --configLoader=native'],
    ['vitest run --config=own.ts --reporter=junit', 'vitest run --config=/h/c.mjs --configLoader=native  --reporter=junit'],
    ['vitest run -c own.ts --configLoader runner {tests}', 'vitest run --config=/h/c.mjs --configLoader=native   {tests}'],
    ["vitest run --config 'a b.ts' x", 'vitest run --config=/h/c.mjs --configLoader=native  x'],
    ['vitest run && vitest run', 'vitest run --config=/h/c.mjs --configLoader=native && vitest run'],
  ])('%j → %j', (command, expected) => {
    expect(withHarnessVitestConfig(command, '/h/c.mjs')).toBe(expected)
  })

  test('quotes a config path the shell would split', () => {
    expect(withHarnessVitestConfig('vitest run', "/h me/it's.mjs")).toBe("vitest run --config='/h me/it'\\''s.mjs' --configLoader=native")
    expect(withHarnessVitestConfig('vitest run', '/h/A-Za_z0.9@%+=:,.mjs')).toBe('vitest run --config=/h/A-Za_z0.9@%+=:,.mjs --configLoader=native')
  })
})

describe('prepareVitestHarness: the files the harness writes', () => {
  test("writes the setup file and a config loading the task's own, both read-only, into the folder (made if missing)", async () => {
    const root = await scratch()
    const cwd = path.join(root, 'tree')
    await mkdir(cwd)
    await writeFile(path.join(cwd, 'vitest.config.ts'), '')
    const dir = path.join(root, 'harness', 'deep')
    const command = await prepareVitestHarness(dir, 'npx vitest run {tests}', cwd)
    const config = path.join(dir, 'vitest.oracle.config.mjs')
    expect(command).toBe(`npx vitest run --config=${config} --configLoader=native {tests}`)
    const setup = path.join(dir, 'oracle-vitest-setup.mjs')
    expect(await readFile(setup, 'utf8')).toBe(VITEST_SETUP_SOURCE)
    const source = await readFile(config, 'utf8')
    expect(source).toContain(`const setup = path.join(path.dirname(here), 'oracle-vitest-setup.mjs')\nconst taskConfig = "vitest.config.ts"\n`)
    expect(source).toContain(
      'const CONFIG_FILES = ["vitest.config.ts","vitest.config.mts","vitest.config.cts","vitest.config.js","vitest.config.mjs","vitest.config.cjs","vite.config.ts",',
    )
    for (const file of [setup, config]) expect((await stat(file)).mode & 0o777).toBe(0o444)
    await rm(root, { recursive: true, force: true })
  })

  test('a folder without a config of its own gets a config that loads none', async () => {
    const root = await scratch()
    await prepareVitestHarness(path.join(root, 'harness'), 'vitest', root)
    expect(await readFile(path.join(root, 'harness', 'vitest.oracle.config.mjs'), 'utf8')).toContain('\nconst taskConfig = null\n')
    await rm(root, { recursive: true, force: true })
  })
})
