import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HarnessFailure } from '../../src/errors.ts'
import { runFixTests } from '../../src/oracle/git-fix.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { createGitFixWorkspace } from '../../src/workspace/git-fix.ts'
import type { Workspace } from '../../src/workspace/workspace.ts'
import { findPytestPython, pytestCommand } from '../helpers/throwaway.ts'
import { agentWrites, harvestedTasks, type HarvestedFixture } from './git-fix-task.ts'

// Harvest and the git-fix oracle on a throwaway Python project tested by the real pytest. pytest is found the
// way the oracle runs it (python3 first on PATH, then Debian's /usr/bin/python3, which CI gives python3-pytest).
const python = findPytestPython()

const geometry = (perimeter: string, area = 'w * h') => `def area(w, h):\n    return ${area}\n\n\ndef perimeter(w, h):\n    return ${perimeter}\n`
const AREA_TESTS = `import pytest
from pkg.geometry import area, perimeter


@pytest.mark.parametrize("w,h,expected", [(1, 1, 1), (2, 3, 6)])
def test_area(w, h, expected):
    assert area(w, h) == expected
`
const PERIMETER_TESTS = `

@pytest.mark.parametrize("w,h,expected", [(1, 1, 4), (2, 3, 10), ("x ", 0, None)])
def test_perimeter(w, h, expected):
    if expected is None:
        pytest.skip("strings have no perimeter")
    assert perimeter(w, h) == expected


class TestSquare:
    def test_square(self, side):
        assert perimeter(side, side) == 4 * side
`
const CONFTEST = `import pytest


@pytest.fixture
def side():
    return 3
`

let fixture: HarvestedFixture
let task: GitFixTask
let scratch: string
const workspaces: Workspace[] = []

describe.skipIf(python === null)(
  `harvest and the git-fix oracle with pytest${python === null ? ' — SKIPPED: no python3 on PATH nor /usr/bin/python3 has pytest (apt-get install python3-pytest)' : ''}`,
  () => {
    beforeAll(async () => {
      fixture = await harvestedTasks(
        [
          {
            subject: 'Initial geometry',
            files: { 'pytest.ini': '[pytest]\n', 'pkg/__init__.py': '', 'pkg/geometry.py': geometry('w + h'), 'tests/conftest.py': CONFTEST, 'tests/test_geometry.py': AREA_TESTS },
          },
          { subject: 'fix: perimeter counts each side once', files: { 'pkg/geometry.py': geometry('2 * (w + h)'), 'tests/test_geometry.py': AREA_TESTS + PERIMETER_TESTS } },
        ],
        { testCommand: pytestCommand(python!), source: ['pkg/**/*.py'], tests: ['tests/**/test_*.py'] },
      )
      task = fixture.tasks[0]!
      scratch = await mkdtemp(path.join(os.tmpdir(), 'oracle-pytest-'))
    })

    afterAll(async () => {
      for (const workspace of workspaces) await workspace.dispose()
      await fixture?.cleanup()
      if (scratch !== undefined) await rm(scratch, { recursive: true, force: true })
    })

    async function run(files: Readonly<Record<string, string | null>>, target: GitFixTask = task) {
      const workspace = await createGitFixWorkspace(task, scratch)
      workspaces.push(workspace)
      await workspace.snapshot()
      await agentWrites(workspace.dir, files)
      return runFixTests(target, workspace, { timeoutMs: 60_000, scratchDir: await mkdtemp(path.join(scratch, 'oracle-')) })
    }

    it('harvests parametrised tests as pytest node ids, leaving the skipped case out of the oracle', () => {
      expect(task.metadata.FAIL_TO_PASS).toEqual([
        'tests/test_geometry.py::TestSquare::test_square',
        'tests/test_geometry.py::test_perimeter[1-1-4]',
        'tests/test_geometry.py::test_perimeter[2-3-10]',
      ])
      expect(task.metadata.PASS_TO_PASS).toEqual(['tests/test_geometry.py::test_area[1-1-1]', 'tests/test_geometry.py::test_area[2-3-6]'])
      expect(fixture.candidates.candidates[0]!.not_passing_after).toEqual(['tests/test_geometry.py::test_perimeter[x -0-None]'])
    })

    it('solves a run with the fix and leaves one without it unsolved', async () => {
      expect((await run({ 'pkg/geometry.py': geometry('2 * (w + h)') })).solved).toBe(true)
      const noop = await run({})
      expect(noop.solved).toBe(false)
      expect(noop.oracle).toEqual({
        failToPass: { passed: 0, total: 3 },
        passToPass: { passed: 2, total: 2 },
        failing: ['tests/test_geometry.py::TestSquare::test_square', 'tests/test_geometry.py::test_perimeter[1-1-4]', 'tests/test_geometry.py::test_perimeter[2-3-10]'],
      })
    })

    it('catches a PASS_TO_PASS regression in a parametrised test', async () => {
      const verdict = await run({ 'pkg/geometry.py': geometry('2 * (w + h)', 'w * h if w != h else 0') })
      expect(verdict.solved).toBe(false)
      expect(verdict.oracle.failing).toEqual(['tests/test_geometry.py::test_area[1-1-1]'])
    })

    it('ignores an agent that rewrites the failing tests, its conftest or the pytest configuration', async () => {
      const verdict = await run({
        'tests/test_geometry.py': AREA_TESTS + PERIMETER_TESTS.replace('assert perimeter(w, h) == expected', 'assert True'),
        'tests/conftest.py': `${CONFTEST}\n\ndef pytest_collection_modifyitems(items):\n    items.clear()\n`,
        'pytest.ini': '[pytest]\naddopts = -p no:junitxml\n',
      })
      expect(verdict.solved).toBe(false)
      expect(verdict.oracle.failToPass).toEqual({ passed: 0, total: 3 })
      expect(verdict.stderr).toContain('ignored 3 change(s)')
    })

    it('never takes a test file from the agent: a conftest whose report hook passes every test is ignored, so nothing is disarmed and the run is unsolved', async () => {
      const passEverything = [
        '',
        '',
        '@pytest.hookimpl(hookwrapper=True)',
        'def pytest_runtest_makereport(item, call):',
        '    outcome = yield',
        '    report = outcome.get_result()',
        '    report.outcome, report.longrepr = "passed", None',
        '',
      ].join('\n')
      const verdict = await run({ 'tests/conftest.py': CONFTEST + passEverything })
      expect(verdict.solved).toBe(false)
      expect(verdict.integrityFlags ?? [], "the oracle took the agent's tests/conftest.py (test files must never be taken from the agent)").toEqual([])
      expect(verdict.oracle.failToPass).toEqual({ passed: 0, total: 3 })
      expect(verdict.stderr).toContain('ignored 1 change(s) to tests or test infrastructure: tests/conftest.py')
    })

    it('catches a source module that forges every test report to "passed": unsolved and oracle-disarmed by the canaries', async () => {
      const forge = [
        'import _pytest.reports as _reports',
        '_original = _reports.TestReport.from_item_and_call.__func__',
        '',
        '',
        'def _forged(cls, item, call):',
        '    report = _original(cls, item, call)',
        '    report.outcome, report.longrepr = "passed", None',
        '    return report',
        '',
        '',
        '_reports.TestReport.from_item_and_call = classmethod(_forged)',
        '',
      ].join('\n')
      const verdict = await run({ 'pkg/geometry.py': `${geometry('w + h')}\n\n${forge}` })
      expect(verdict.oracle.failToPass.passed).toBe(verdict.oracle.failToPass.total)
      expect(verdict.solved).toBe(false)
      expect(verdict.integrityFlags![0]).toMatch(/^oracle-disarmed: a canary that must fail passed: tests\/test_geometry\.py: "test_\w+"/)
      // The oracle's own pytest plugin saw the report class change too.
      expect(verdict.stderr).toContain("oracle-disarmed: code in the test process changed pytest's internals (_pytest.reports:TestReport.from_item_and_call)")
    })

    it("catches, through the oracle's pytest plugin, a source module that patches the runner, the assertion rewriter or AssertionError", async () => {
      const patches = {
        '_pytest.python:Function.runtest': 'import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n',
        '_pytest.assertion.rewrite:AssertionRewritingHook.exec_module':
          'import _pytest.assertion.rewrite as r\n_exec = r.AssertionRewritingHook.exec_module\nr.AssertionRewritingHook.exec_module = lambda self, module: _exec(self, module)\n',
        'builtins:AssertionError': 'import builtins\nclass _Quiet(Exception):\n    pass\nbuiltins.AssertionError = _Quiet\n',
      }
      for (const [name, patch] of Object.entries(patches)) {
        const verdict = await run({ 'pkg/geometry.py': `${geometry('w + h')}\n\n${patch}` })
        expect(verdict.solved, name).toBe(false)
        expect(verdict.integrityFlags, name).toHaveLength(1)
        expect(verdict.stderr, name).toContain(`oracle-disarmed: code in the test process changed pytest's internals (${name}`)
      }
    })

    it('counts a run whose code kills pytest before it reports as unsolved, since the clean parent does report', async () => {
      const verdict = await run({ 'pkg/geometry.py': 'import os\nos._exit(3)\n' })
      expect(verdict.solved).toBe(false)
      expect(verdict.oracle.failing).toHaveLength(5)
      expect(verdict.stderr).toMatch(/the agent's changes stopped the tests from reporting: counted as unsolved/)
    })

    it('is a harness failure when the test command itself crashes before producing results', async () => {
      const broken: GitFixTask = { ...task, metadata: { ...task.metadata, test_command: `${python} -m pytest --no-such-option --junitxml={junit} {tests}` } }
      const failure = await run({ 'pkg/geometry.py': geometry('2 * (w + h)') }, broken).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(HarnessFailure)
      expect((failure as HarnessFailure).reason).toBe('oracle')
    })
  },
)
