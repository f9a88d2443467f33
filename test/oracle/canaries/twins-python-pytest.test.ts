import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { writePythonTwin } from '../../../src/oracle/canaries/twins-python.ts'
import { findPytestPython } from '../../helpers/throwaway.ts'

// A pytest file's twin run by pytest itself: it must fail where the line it repeats passes, and leave the file's own
// tests as they were. (The rules for which line a twin repeats, and where it stands, are in twins-python.test.ts.)
const python = findPytestPython()
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const CALC = 'def mul(a, b):\n    return a * b\n\n\ndef greet(name):\n    return "Hello, " + name\n'

/** Runs `test_calc.py` (with calc.py) under pytest in a fresh folder: each test's outcome from `-rA`'s summary. */
async function runPytest(testSource: string): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'twins-python-'))
  dirs.push(dir)
  await writeFile(path.join(dir, 'calc.py'), CALC)
  await writeFile(path.join(dir, 'test_calc.py'), testSource)
  const run = spawnSync(python!, ['-m', 'pytest', '-p', 'no:cacheprovider', '-rA', '-q', 'test_calc.py'], { cwd: dir, encoding: 'utf8' })
  const outcomes: Record<string, string> = {}
  for (const [, outcome, name] of run.stdout.matchAll(/^(PASSED|FAILED|ERROR) test_calc\.py::([\w[\]]+)/gm)) outcomes[name!] = outcome!
  return outcomes
}

describe.skipIf(python === null)(`the twin under pytest${python === null ? ' — SKIPPED: no python3 with pytest (apt-get install python3-pytest)' : ''}`, () => {
  test('fails where the line it repeats passes, and the file’s own tests still run as before', async () => {
    const source =
      'import pytest\nfrom calc import greet, mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\n@pytest.mark.parametrize("n", [1, 2])\ndef test_greet(n):\n    assert greet("bob") == "Hello, bob"\n'
    for (let i = 0; i < 3; i++) {
      expect(await runPytest(writePythonTwin(source, 'test_twin')!.source)).toEqual({
        test_mul: 'PASSED',
        test_twin: 'FAILED',
        'test_greet[1]': 'PASSED',
        'test_greet[2]': 'PASSED',
      })
    }
  })
})
