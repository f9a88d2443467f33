import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseJUnit } from '../../src/oracle/junit/parse.ts'
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

// A node --test command line with the TAP channel on stderr, as withSecondChannel adds it.
const TAP_ON_STDERR = 'node --test --test-reporter=tap --test-reporter-destination=stderr --test-reporter=junit --test-reporter-destination=/r.xml a.test.js'

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
    const tests = readSecondChannel('node-test', { commandLine: TAP_ON_STDERR, stdout: '', stderr: NODE_TAP }, '/copy')
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
      {
        commandLine: '',
        stdout: 'TAP version 13\n1..2\nok 1 - test/a.test.js > kebab > turns A into a # time=1.20ms\nnot ok 2 - test/a.test.js > kebab > b # time=0.5ms\n',
        stderr: '',
      },
      '/copy',
    )
    expect(Object.fromEntries(vitest)).toEqual({ 'test/a.test.js::kebab > turns A into a': 'passed', 'test/a.test.js::kebab > b': 'failed' })
    const summary =
      '..F\n=== short test summary info ===\nPASSED tests/test_a.py::test_one\nPASSED tests/test_a.py::test_two[1-2]\nFAILED tests/test_a.py::test_three - assert 1 == 2\n=== 1 failed, 2 passed in 0.1s ==='
    expect(Object.fromEntries(readSecondChannel('pytest', { commandLine: '', stdout: summary, stderr: '' }, '/copy'))).toEqual({
      'tests/test_a.py::test_one': 'passed',
      'tests/test_a.py::test_two[1-2]': 'passed',
      'tests/test_a.py::test_three': 'failed',
    })
  })

  it('finds where the stream and the report disagree on a listed test, and an exit 0 beside reported failures', () => {
    const stream = readSecondChannel('node-test', { commandLine: TAP_ON_STDERR, stdout: '', stderr: NODE_TAP }, '/copy')
    expect(
      compareChannels(report({ top: 'passed', 'splitting # rows > keeps "commas"': 'passed', canary: 'failed' }), stream, ['top', 'splitting # rows > keeps "commas"'], 1),
    ).toEqual([])
    expect(compareChannels(report({ 'splitting # rows > fails \\ here': 'passed' }), stream, ['splitting # rows > fails \\ here'], 1)).toEqual([
      '"splitting # rows > fails \\ here" is passed in the report but failed in the runner\'s own stream',
    ])
    expect(compareChannels(report({ top: 'passed', canary: 'failed' }), stream, ['top'], 0)).toEqual(['the report lists 1 failed test(s) but the runner exited 0'])
    expect(compareChannels(report({ top: 'passed' }), new Map(), ['top'], 1)).toEqual(["the runner's own stream names no test, though its report does"])
  })

  it('finds the runner wherever it stands in the command, and leaves look-alikes alone', () => {
    expect(withSecondChannel('node-test', 'node --test')).toBe('node --test --test-reporter=tap --test-reporter-destination=stderr')
    expect(withSecondChannel('node-test', '--test a.js')).toBe('--test --test-reporter=tap --test-reporter-destination=stderr a.js')
    expect(withSecondChannel('node-test', 'node --test-only --test a.js')).toBe('node --test-only --test --test-reporter=tap --test-reporter-destination=stderr a.js')
    expect(withSecondChannel('vitest', 'npx vitest --reporter=junit')).toBe('npx vitest --reporter=tap-flat --reporter=junit')
    expect(withSecondChannel('vitest', 'node node_modules/vitest/vitest.mjs  run')).toBe('node node_modules/vitest/vitest.mjs  run --reporter=tap-flat')
    expect(withSecondChannel('vitest', 'npx vitest')).toBe('npx vitest --reporter=tap-flat')
    expect(withSecondChannel('pytest', 'pytest')).toBe('pytest -rA')
    expect(withSecondChannel('pytest', 'pytest-3 tests')).toBe('pytest-3 tests')
  })

  it("makes node's own text reporter on stdout or stderr TAP in its place, so the runner formats each test once per stream, not twice", () => {
    const spec = 'node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={junit} {tests}'
    expect(withSecondChannel('node-test', spec)).toBe(
      'node --test --test-reporter=tap --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={junit} {tests}',
    )
    expect(withSecondChannel('node-test', 'node --test --test-reporter dot --test-reporter-destination stderr --test-reporter=junit --test-reporter-destination=r.xml')).toBe(
      'node --test --test-reporter=tap --test-reporter-destination stderr --test-reporter=junit --test-reporter-destination=r.xml',
    )
    // Paired as node pairs them, by position: the second reporter writes to the second destination.
    expect(withSecondChannel('node-test', 'node --test --test-reporter=junit --test-reporter=spec --test-reporter-destination=r.xml --test-reporter-destination=stdout')).toBe(
      'node --test --test-reporter=junit --test-reporter=tap --test-reporter-destination=r.xml --test-reporter-destination=stdout',
    )
    // A text reporter into a file, or flags written in a form this does not read, get TAP added on stderr.
    for (const command of ['node --test --test-reporter=spec --test-reporter-destination=out.txt', 'node --test --test-reporter="spec" --test-reporter-destination=stdout']) {
      expect(withSecondChannel('node-test', command)).toBe(command.replace('--test ', '--test --test-reporter=tap --test-reporter-destination=stderr '))
    }
  })

  it("reads node's TAP from the stream the command line puts it on, and nothing from the other", () => {
    const onStdout = withSecondChannel(
      'node-test',
      "node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination='/r a.xml'",
    )
    const tap = '# Subtest: top\nok 1 - top\n'
    expect(Object.fromEntries(readSecondChannel('node-test', { commandLine: onStdout, stdout: tap, stderr: 'ok 9 - elsewhere\n' }, '/copy'))).toEqual({ top: 'passed' })
    expect(Object.fromEntries(readSecondChannel('node-test', { commandLine: TAP_ON_STDERR, stdout: 'ok 9 - elsewhere\n', stderr: tap }, '/copy'))).toEqual({ top: 'passed' })
  })

  it("reads node's TAP three suites deep, and ignores a result line indented off the four-space grid", () => {
    const tap = [
      '# Subtest: outer',
      '    # Subtest: inner',
      '        # Subtest: deepest',
      '        ok 1 - deepest',
      '      ok 9 - off the grid',
      '    ok 1 - inner',
      'ok 1 - outer',
      '    ok 2 - nested without a subtest line',
    ].join('\n')
    expect(Object.fromEntries(readSecondChannel('node-test', { commandLine: TAP_ON_STDERR, stdout: '', stderr: tap }, '/copy'))).toEqual({
      'outer > inner > deepest': 'passed',
      'outer > inner': 'passed',
      outer: 'passed',
      'outer > nested without a subtest line': 'passed',
    })
    // A stream that starts nested has no suite to name.
    expect(Object.fromEntries(readSecondChannel('node-test', { commandLine: TAP_ON_STDERR, stdout: '', stderr: '    ok 1 - alone' }, '/copy'))).toEqual({ alone: 'passed' })
  })

  it("reads Vitest's skips and todos, times in seconds, a file-level entry, and no indented line", () => {
    const stdout = [
      'ok 1 - test/a.test.js > skipped one # SKIP',
      'ok 2 - test/a.test.js > todo one # TODO',
      'ok 3 - test/a.test.js > slow one # time=1.5s',
      'not ok 4 - test/b.test.js # time=2ms',
      '    ok 5 - test/a.test.js > indented',
    ].join('\n')
    expect(Object.fromEntries(readSecondChannel('vitest', { commandLine: '', stdout, stderr: '' }, '/copy'))).toEqual({
      'test/a.test.js::skipped one': 'skipped',
      'test/a.test.js::todo one': 'skipped',
      'test/a.test.js::slow one': 'passed',
      'test/b.test.js': 'failed',
    })
  })

  it("reads every word of pytest's summary, only after its last header, and nothing without one", () => {
    const stdout = [
      'PASSED tests/test_a.py::test_printed_before - captured output',
      '=== short test summary info ===',
      'PASSED tests/test_a.py::test_old',
      '=== short test summary info ===',
      'PASSED tests/test_a.py::test_ok',
      'XPASS tests/test_a.py::test_xpass',
      'XFAIL tests/test_a.py::test_xfail - reason',
      'ERROR tests/test_a.py::test_error - fixture broke',
      'FAILED tests/test_a.py::test_failed',
      'SKIPPED [1] tests/test_a.py:9: not here',
    ].join('\n')
    expect(Object.fromEntries(readSecondChannel('pytest', { commandLine: '', stdout, stderr: '' }, '/copy'))).toEqual({
      'tests/test_a.py::test_ok': 'passed',
      'tests/test_a.py::test_xpass': 'passed',
      'tests/test_a.py::test_xfail': 'skipped',
      'tests/test_a.py::test_error': 'failed',
      'tests/test_a.py::test_failed': 'failed',
    })
    expect(readSecondChannel('pytest', { commandLine: '', stdout: 'PASSED tests/test_a.py::test_ok\n', stderr: '' }, '/copy').size).toBe(0)
    // A passed test's node id is never cut at " - " (only a failure's message or an xfail's reason follows one);
    // the others' are cut at the first " - " after their parameters, which may hold " - " themselves.
    const dashed = [
      'short test summary info',
      'PASSED tests/test_a.py::test_range[a - b]',
      'PASSED tests/a - b.py::test_in_a_dashed_file',
      'FAILED tests/test_a.py::test_range[c] - assert a - b',
      'FAILED tests/test_a.py::test_range[d - e] - assert [1] - [2]',
      'FAILED tests/test_a.py::test_listed - assert [1] == [2] - [3]',
      'XPASS tests/test_a.py::test_xpass_reason - known - flaky',
      'XPASS tests/test_a.py::test_xpass_range[f - g] - r',
      'XPASS tests/test_a.py::test_xpass_no_reason',
      'XPASS tests/test_a.py::test_unclosed[h - i',
    ].join('\n')
    expect(Object.fromEntries(readSecondChannel('pytest', { commandLine: '', stdout: dashed, stderr: '' }, '/copy'))).toEqual({
      'tests/test_a.py::test_range[a - b]': 'passed',
      'tests/a - b.py::test_in_a_dashed_file': 'passed',
      'tests/test_a.py::test_range[c]': 'failed',
      'tests/test_a.py::test_range[d - e]': 'failed',
      'tests/test_a.py::test_listed': 'failed',
      'tests/test_a.py::test_xpass_reason': 'passed',
      'tests/test_a.py::test_xpass_range[f - g]': 'passed',
      'tests/test_a.py::test_xpass_no_reason': 'passed',
      'tests/test_a.py::test_unclosed[h - i': 'passed',
    })
  })

  it('an XPASS with a reason and parameters holding " - " agree with pytest\'s own JUnit report on a real run', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'second-channel-pytest-'))
    try {
      await writeFile(
        path.join(dir, 'test_dashes.py'),
        [
          'import pytest',
          '@pytest.mark.xfail(strict=False, reason="known - flaky")',
          'def test_xpass(): pass',
          '@pytest.mark.xfail(strict=False, reason="r")',
          '@pytest.mark.parametrize("v", ["a - b"])',
          'def test_xpass_range(v): pass',
          '@pytest.mark.parametrize("v", ["c - d"])',
          'def test_fails(v): assert False, "boom - x"',
          '@pytest.mark.xfail(reason="why - not")',
          'def test_xfail(): assert False',
          'def test_plain(): pass',
          '',
        ].join('\n'),
      )
      const command = withSecondChannel('pytest', 'python3 -m pytest -q -p no:cacheprovider --junitxml=report.xml test_dashes.py').split(' ')
      const run = spawnSync(command[0]!, command.slice(1), { cwd: dir, encoding: 'utf8' })
      expect(run.status, run.stderr).toBe(1)
      const report = parseJUnit(await readFile(path.join(dir, 'report.xml'), 'utf8'), { cwd: dir, testFiles: ['test_dashes.py'] })
      const stream = readSecondChannel('pytest', { ...run, commandLine: command.join(' ') }, dir)
      expect(Object.fromEntries(stream)).toEqual({
        'test_dashes.py::test_xpass': 'passed',
        'test_dashes.py::test_xpass_range[a - b]': 'passed',
        'test_dashes.py::test_fails[c - d]': 'failed',
        'test_dashes.py::test_xfail': 'skipped',
        'test_dashes.py::test_plain': 'passed',
      })
      expect(compareChannels(report, stream, [...report.tests.keys()], run.status)).toEqual([])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('a test streamed twice keeps the worse status, whichever came first', () => {
    const twice = (first: string, second: string) =>
      readSecondChannel('node-test', { commandLine: TAP_ON_STDERR, stdout: '', stderr: `${first} 1 - t\n${second} 2 - t` }, '/copy').get('t')
    expect(twice('ok', 'not ok')).toBe('failed')
    expect(twice('not ok', 'ok')).toBe('failed')
    expect(twice('not ok', 'ok 1 - t # SKIP\nok')).toBe('failed')
    expect(readSecondChannel('node-test', { commandLine: TAP_ON_STDERR, stdout: '', stderr: 'ok 1 - t # SKIP\nok 2 - t' }, '/copy').get('t')).toBe('skipped')
    expect(readSecondChannel('node-test', { commandLine: TAP_ON_STDERR, stdout: '', stderr: 'ok 1 - t\nok 2 - t # SKIP' }, '/copy').get('t')).toBe('skipped')
    expect(twice('ok', 'ok')).toBe('passed')
  })

  it('agrees where both say failed or both lack a test, names a test the stream lacks, and accepts exit 0 when nothing failed', () => {
    const stream = new Map([
      ['a', 'passed'],
      ['b', 'failed'],
    ] as const)
    expect(compareChannels(report({ a: 'passed', b: 'failed' }), stream, ['a', 'b', 'gone'], 1)).toEqual([])
    expect(compareChannels(report({ a: 'passed', c: 'passed' }), stream, ['a', 'c'], 1)).toEqual(['"c" is passed in the report but absent in the runner\'s own stream'])
    expect(compareChannels(report({ c: 'passed' }), stream, ['a'], 1)).toEqual(['"a" is absent in the report but passed in the runner\'s own stream'])
    expect(compareChannels(report({ a: 'skipped' }), stream, ['a'], 0)).toEqual(['"a" is skipped in the report but passed in the runner\'s own stream'])
    expect(compareChannels(report({ a: 'passed', s: 'skipped' }), stream, ['a'], 0)).toEqual([])
  })
})
