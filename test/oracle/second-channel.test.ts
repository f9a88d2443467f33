import { describe, expect, it } from 'vitest'
import type { JUnitResults } from '../../src/oracle/junit/results.ts'
import { compareChannels, readSecondChannel, withSecondChannel } from '../../src/oracle/second-channel.ts'

// The runner's own per-test stream, as node --test, Vitest and pytest print it, read into the JUnit parser's ids.
const NODE_TAP = [
  '# Subtest: splitting \\# rows',
  '    # Subtest: keeps "commas"',
  '    ok 1 - keeps "commas"',
  '    # Subtest: fails \\\\ here',
  '    not ok 2 - fails \\\\ here',
  '        Test.runInAsyncScope (node:async_hooks:211:14)',
  'not ok 1 - splitting \\# rows',
  '# Subtest: top',
  'ok 2 - top',
  'ok 3 - skipped # SKIP',
].join('\n')

const report = (tests: Record<string, 'passed' | 'failed' | 'skipped'>): JUnitResults => ({ format: 'node', tests: new Map(Object.entries(tests)) })

describe('the second channel', () => {
  it('asks each runner for its per-test stream beside the report', () => {
    expect(withSecondChannel('node-test', 'node --test --test-reporter=junit --test-reporter-destination={junit} {tests}')).toBe(
      'node --test --test-reporter=tap --test-reporter-destination=stderr --test-reporter=junit --test-reporter-destination={junit} {tests}',
    )
    expect(withSecondChannel('vitest', 'node_modules/.bin/vitest run --reporter=junit --outputFile={junit} {tests}')).toBe(
      'node_modules/.bin/vitest run --reporter=tap-flat --reporter=junit --outputFile={junit} {tests}',
    )
    expect(withSecondChannel('pytest', 'python3 -m pytest -q --junitxml={junit} {tests}')).toBe('python3 -m pytest -rA -q --junitxml={junit} {tests}')
  })

  it("reads node's nested TAP into suite > test ids, escapes undone", () => {
    const tests = readSecondChannel('node-test', { stdout: '', stderr: NODE_TAP }, '/copy')
    expect(Object.fromEntries(tests)).toEqual({
      'splitting # rows > keeps "commas"': 'passed',
      'splitting # rows > fails \\ here': 'failed',
      'splitting # rows': 'failed',
      top: 'passed',
      skipped: 'skipped',
    })
  })

  it("reads Vitest's flat TAP into file::suite > test ids, and pytest's -rA summary into node ids", () => {
    const vitest = readSecondChannel(
      'vitest',
      { stdout: 'TAP version 13\n1..2\nok 1 - test/a.test.js > kebab > turns A into a # time=1.20ms\nnot ok 2 - test/a.test.js > kebab > b # time=0.5ms\n', stderr: '' },
      '/copy',
    )
    expect(Object.fromEntries(vitest)).toEqual({ 'test/a.test.js::kebab > turns A into a': 'passed', 'test/a.test.js::kebab > b': 'failed' })
    const summary =
      '..F\n=== short test summary info ===\nPASSED tests/test_a.py::test_one\nPASSED tests/test_a.py::test_two[1-2]\nFAILED tests/test_a.py::test_three - assert 1 == 2\n=== 1 failed, 2 passed in 0.1s ==='
    expect(Object.fromEntries(readSecondChannel('pytest', { stdout: summary, stderr: '' }, '/copy'))).toEqual({
      'tests/test_a.py::test_one': 'passed',
      'tests/test_a.py::test_two[1-2]': 'passed',
      'tests/test_a.py::test_three': 'failed',
    })
  })

  it('finds where the stream and the report disagree on a listed test, and an exit 0 beside reported failures', () => {
    const stream = readSecondChannel('node-test', { stdout: '', stderr: NODE_TAP }, '/copy')
    expect(
      compareChannels(report({ top: 'passed', 'splitting # rows > keeps "commas"': 'passed', canary: 'failed' }), stream, ['top', 'splitting # rows > keeps "commas"'], 1),
    ).toEqual([])
    expect(compareChannels(report({ 'splitting # rows > fails \\ here': 'passed' }), stream, ['splitting # rows > fails \\ here'], 1)).toEqual([
      '"splitting # rows > fails \\ here" is passed in the report but failed in the runner\'s own stream',
    ])
    expect(compareChannels(report({ top: 'passed', canary: 'failed' }), stream, ['top'], 0)).toEqual(['the report lists 1 failed test(s) but the runner exited 0'])
    expect(compareChannels(report({ top: 'passed' }), new Map(), ['top'], 1)).toEqual(["the runner's own stream names no test, though its report does"])
  })
})
