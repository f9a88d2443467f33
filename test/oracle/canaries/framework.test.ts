import { describe, expect, test } from 'vitest'
import { canaryFramework } from '../../../src/oracle/canaries/framework.ts'

describe('canaryFramework: which framework the canaries are written in', () => {
  test('is pytest when the command runs pytest, as a word of its own, whatever the test files', () => {
    expect(canaryFramework('pytest', [])).toBe('pytest')
    expect(canaryFramework('python -m pytest -q tests/test_calc.py', ['tests/test_calc.py'])).toBe('pytest')
    expect(canaryFramework('uv run pytest', ['test/calc.test.js'])).toBe('pytest')
    expect(canaryFramework('pytest-3 -x', [])).toBe('pytest')
  })

  test('is pytest when every test file is a Python file, whatever the command', () => {
    expect(canaryFramework('make check', ['tests/test_calc.py'])).toBe('pytest')
    expect(canaryFramework('./run-tests', ['tests/test_calc.py', 'tests/test_parse.py'])).toBe('pytest')
    // Python files win over a command that also names another runner.
    expect(canaryFramework('npx vitest run', ['tests/test_calc.py'])).toBe('pytest')
  })

  test('is not pytest for a word that only contains pytest, nor when one test file is not Python', () => {
    expect(canaryFramework('mypytest', [])).toBeNull()
    expect(canaryFramework('pytester', [])).toBeNull()
    expect(canaryFramework('make check', ['tests/test_calc.py', 'test/calc.test.js'])).toBeNull()
    expect(canaryFramework('make check', ['tests/calc.pyc'])).toBeNull()
    expect(canaryFramework('make check', ['py/calc.test.js'])).toBeNull()
  })

  test('is null for a command it does not know and no test files (no canaries can be written)', () => {
    expect(canaryFramework('make check', [])).toBeNull()
    expect(canaryFramework('', [])).toBeNull()
  })

  test('is Vitest when the command names vitest, as a word of its own', () => {
    expect(canaryFramework('vitest', [])).toBe('vitest')
    expect(canaryFramework('npx vitest run test/calc.test.ts', ['test/calc.test.ts'])).toBe('vitest')
    expect(canaryFramework('npx vitest --test-timeout=1000', [])).toBe('vitest')
    expect(canaryFramework('myvitest run', [])).toBeNull()
    expect(canaryFramework('vitests run', [])).toBeNull()
  })

  test('is node:test when the command passes --test, alone, followed by a space or an =, or at its end', () => {
    expect(canaryFramework('node --test', [])).toBe('node-test')
    expect(canaryFramework('node --test test/', ['test/calc.test.js'])).toBe('node-test')
    expect(canaryFramework('node --test\ttest/', [])).toBe('node-test')
    expect(canaryFramework('node --test=true test/', [])).toBe('node-test')
  })

  test('is node:test when --test starts the command or follows a space, tab, ;, &, | or (', () => {
    expect(canaryFramework('--test', [])).toBe('node-test')
    expect(canaryFramework('node\t--test', [])).toBe('node-test')
    expect(canaryFramework('cd app;--test', [])).toBe('node-test')
    expect(canaryFramework('true&&--test', [])).toBe('node-test')
    expect(canaryFramework('false||--test', [])).toBe('node-test')
    expect(canaryFramework('(--test test/)', [])).toBe('node-test')
  })

  test('is not node:test for a longer option or one that only ends in --test', () => {
    expect(canaryFramework('node --test-reporter=spec test/calc.test.js', [])).toBeNull()
    expect(canaryFramework('node --testing', [])).toBeNull()
    expect(canaryFramework('npm run unit--test', [])).toBeNull()
    expect(canaryFramework('node x--test y', [])).toBeNull()
    expect(canaryFramework('node ---test', [])).toBeNull()
  })
})
