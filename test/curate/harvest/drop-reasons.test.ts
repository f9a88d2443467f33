import { readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SingleRepositoryFile } from '../../../src/curate/harvest/candidates-file.ts'
import { cli } from '../../helpers/kebab-repository.ts'
import { buildRepo, findPytestPython } from '../../helpers/throwaway.ts'

// A pytest repository harvested through the CLI as a user runs it: the drop line says what happened, in the words of
// the test command's own output, not only the status it exited with or the FAIL_TO_PASS count that followed.
// One fix is a good candidate; the other's new test file imports a module nobody installed.
const python = findPytestPython()

const laps = (body: string) => `def lap(start, end):\n    return ${body}\n`
const LAPS_TEST = 'from pkg.laps import lap\n\n\ndef test_forward():\n    assert lap(1, 4) == 3\n'
const BACKWARD = '\n\ndef test_backward():\n    assert lap(4, 1) == 3\n'
const ROUNDING_TEST = 'import stopwatch_nobody_installed\nfrom pkg.laps import lap\n\n\ndef test_rounded():\n    assert lap(0.25, 1) == 0.75\n'

describe.skipIf(python === null)('harvest drop reasons', () => {
  let repo: { dir: string; commits: string[] }
  const harvest = async (name: string, testCommand: string) => {
    const out = path.join(`${repo.dir}-${name}`, 'candidates.json')
    const result = await cli(['harvest', '--repo', repo.dir, '--out', out, '--source', 'pkg/**/*.py', '--tests', 'tests/**/*.py', '--test-command', testCommand])
    return { ...result, file: JSON.parse(await readFile(out, 'utf8')) as SingleRepositoryFile }
  }
  let missingCommand: Awaited<ReturnType<typeof harvest>>
  let missingModule: Awaited<ReturnType<typeof harvest>>

  beforeAll(async () => {
    repo = await buildRepo(
      [
        { subject: 'Initial laps', files: { 'pytest.ini': '[pytest]\n', 'pkg/__init__.py': '', 'pkg/laps.py': laps('end - start'), 'tests/test_laps.py': LAPS_TEST } },
        { subject: 'fix: laps are never negative', files: { 'pkg/laps.py': laps('abs(end - start)'), 'tests/test_laps.py': LAPS_TEST + BACKWARD } },
        { subject: 'fix: fractions of a second', files: { 'pkg/laps.py': laps('abs(float(end) - float(start))'), 'tests/test_rounding.py': ROUNDING_TEST } },
      ],
      'drop-reasons-',
    )
    // The README's command on a machine whose Python has another name, then the command that works.
    missingCommand = await harvest('command', 'no-such-python3 -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}')
    missingModule = await harvest('module', `${python} -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}`)
  }, 600_000)

  afterAll(async () => {
    for (const dir of [repo.dir, `${repo.dir}-command`, `${repo.dir}-module`]) await rm(dir, { recursive: true, force: true })
  })

  it('a test command that does not exist: every commit is dropped with "command not found: <command>"', () => {
    expect(missingCommand.file.candidates).toEqual([])
    expect(missingCommand.file.dropped.map((entry) => entry.reason)).toEqual([
      expect.stringMatching(/^command not found: no-such-python3 \(.*exited 127 without writing a JUnit report; check --test-command and the PATH/),
      expect.stringMatching(/^command not found: no-such-python3 /),
    ])
    expect(missingCommand.stdout).toMatch(/^dropped +[0-9a-f]{10} +fix: laps are never negative: command not found: no-such-python3 /m)
  })

  it('a test file importing a module that is not installed: dropped with "collection error: No module named \'<module>\'", the good fix kept', () => {
    expect(missingModule.exitCode, missingModule.all).toBe(0)
    expect(missingModule.file.candidates.map((candidate) => [candidate.fix, candidate.FAIL_TO_PASS])).toEqual([[repo.commits[1], ['tests/test_laps.py::test_backward']]])
    expect(missingModule.file.dropped).toEqual([
      expect.objectContaining({ fix: repo.commits[2], reason: expect.stringMatching(/^collection error: No module named 'stopwatch_nobody_installed' \(/) }),
    ])
    expect(missingModule.stdout).toMatch(/^dropped +[0-9a-f]{10} +fix: fractions of a second: collection error: No module named 'stopwatch_nobody_installed'/m)
  })
})
