import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { PYTEST_GUARD_MARK, PYTEST_GUARD_SOURCE, pytestGuardFindings, withPytestGuard, writePytestGuard } from '../../src/oracle/pytest-guard.ts'
import { findPytestPython } from '../helpers/throwaway.ts'

// The oracle's pytest plugin: how a command gets it, where it is written, and how its line is read; then the
// plugin itself on a real pytest run (the git-fix oracle's end-to-end case is in git-fix-pytest.test.ts).

const python = findPytestPython()

describe('withPytestGuard: the command with the plugin loaded and the cache provider off', () => {
  test.each([
    ['pytest {tests}', 'pytest -p no:cacheprovider -p guard {tests}'],
    ['pytest', 'pytest -p no:cacheprovider -p guard'],
    ['python -m pytest -q {tests}', 'python -m pytest -p no:cacheprovider -p guard -q {tests}'],
    ['.venv/bin/pytest\t{tests}', '.venv/bin/pytest -p no:cacheprovider -p guard\t{tests}'],
    ['pytest a && pytest b', 'pytest -p no:cacheprovider -p guard a && pytest b'],
    ['pytest-xdist-run {tests}', 'pytest-xdist-run {tests}'],
    ['mypytest {tests}', 'mypytest {tests}'],
    ['npx vitest run', 'npx vitest run'],
  ])('%j → %j', (command, expected) => {
    expect(withPytestGuard(command, 'guard')).toBe(expected)
  })
})

describe('writePytestGuard: the plugin under a fresh module name', () => {
  test('writes the plugin read-only into the folder (made if missing), under a name of its own for each run', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-guard-'))
    const dir = path.join(root, 'deep', 'plugins')
    const first = await writePytestGuard(dir)
    const second = await writePytestGuard(dir)
    expect(first.dir).toBe(dir)
    expect(first.moduleName).toMatch(/^task_outcome_guard_[0-9a-f]{12}$/)
    expect(second.moduleName).not.toBe(first.moduleName)
    const file = path.join(dir, `${first.moduleName}.py`)
    expect(await readFile(file, 'utf8')).toBe(PYTEST_GUARD_SOURCE)
    expect((await stat(file)).mode & 0o777).toBe(0o444)
    await rm(root, { recursive: true, force: true })
  })
})

describe("pytestGuardFindings: the plugin's line in the runner's stderr", () => {
  test.each<[string, string, string[]]>([
    ['no stderr', '', []],
    ['other lines only', 'warning: x\n== 1 passed ==\n', []],
    ['the mark inside a line, not at its start', `echo: ${PYTEST_GUARD_MARK} pytest:main\n`, []],
    [
      'the line among others',
      `collected 1 item\n${PYTEST_GUARD_MARK} _pytest.runner:runtestprotocol, builtins:AssertionError  \nmore\n`,
      ["code in the test process changed pytest's internals (_pytest.runner:runtestprotocol, builtins:AssertionError)"],
    ],
    ['the first of two lines', `${PYTEST_GUARD_MARK} a:b\n${PYTEST_GUARD_MARK} c:d\n`, ["code in the test process changed pytest's internals (a:b)"]],
  ])('%s', (_what, stderr, expected) => {
    expect(pytestGuardFindings(stderr)).toEqual(expected)
  })
})

describe.skipIf(python === null)('the plugin on a real pytest run', () => {
  async function runWithGuard(files: Record<string, string>): Promise<string[]> {
    const root = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-guard-run-'))
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, 'repo', file)), { recursive: true })
      await writeFile(path.join(root, 'repo', file), content)
    }
    const guard = await writePytestGuard(path.join(root, 'guard'))
    const command = withPytestGuard('pytest -q tests', guard.moduleName).split(' ')
    let stderr = ''
    try {
      execFileSync(python!, ['-m', ...command], {
        cwd: path.join(root, 'repo'),
        env: { PATH: process.env.PATH, PYTHONPATH: guard.dir, PYTHONDONTWRITEBYTECODE: '1' },
        encoding: 'utf8',
        stdio: 'pipe',
      })
    } catch (error) {
      stderr = (error as { stderr: string }).stderr
    }
    await rm(root, { recursive: true, force: true })
    return pytestGuardFindings(stderr)
  }

  test("says nothing of a run that leaves pytest's internals alone, a test's own monkeypatch undone", async () => {
    const test = 'import _pytest.runner\ndef test_a(monkeypatch):\n    monkeypatch.setattr(_pytest.runner, "runtestprotocol", lambda *a, **k: True)\n'
    expect(await runWithGuard({ 'tests/test_a.py': test })).toEqual([])
  })

  test('names what code in the test process replaced', async () => {
    const test = 'import _pytest.runner\n_pytest.runner.call_and_report = lambda *a, **k: None\ndef test_a():\n    assert True\n'
    const found = await runWithGuard({ 'tests/test_a.py': test })
    expect(found).toHaveLength(1)
    expect(found[0]).toContain('_pytest.runner:call_and_report')
  })
})
