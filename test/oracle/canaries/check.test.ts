import { describe, expect, test } from 'vitest'
import { checkCanaries, ORACLE_DISARMED } from '../../../src/oracle/canaries/check.ts'
import type { Canary } from '../../../src/oracle/canaries/lay.ts'
import type { JUnitFormat, JUnitResults, TestStatus } from '../../../src/oracle/junit/results.ts'

const report = (tests: Record<string, TestStatus>, format: JUnitFormat = 'generic'): JUnitResults => ({ format, tests: new Map(Object.entries(tests)) })

const mustFail: Canary = { file: 'test/calc.test.js', name: 'keeps amber first', kind: 'must-fail', method: 'equal' }
const mustPass: Canary = { file: 'test/calc.test.js', name: 'reads cedar last', kind: 'must-pass', method: 'deepEqual' }
const where = (canary: Canary) => `${canary.file}: "${canary.name}" (${canary.method})`

describe('ORACLE_DISARMED', () => {
  test('is the integrity flag the oracle records for a disarmed or forged oracle', () => {
    expect(ORACLE_DISARMED).toBe('oracle-disarmed')
  })
})

describe('checkCanaries: what the canaries say about a report', () => {
  test('says nothing when every must-fail canary failed and every must-pass one passed', () => {
    const results = report({ 'test/calc.test.js > keeps amber first': 'failed', 'test/calc.test.js > reads cedar last': 'passed', multiplies: 'passed' })
    expect(checkCanaries(results, [mustFail, mustPass], true)).toEqual([])
  })

  test('says nothing when there are no canaries', () => {
    expect(checkCanaries(report({ multiplies: 'passed' }), [], true)).toEqual([])
  })

  test('names a must-fail canary that passed, with its file, name and method, whether or not a real test passed', () => {
    const results = report({ 'keeps amber first': 'passed' })
    const problem = `a canary that must fail passed: ${where(mustFail)}`
    expect(problem).toBe('a canary that must fail passed: test/calc.test.js: "keeps amber first" (equal)')
    expect(checkCanaries(results, [mustFail], true)).toEqual([problem])
    expect(checkCanaries(results, [mustFail], false)).toEqual([problem])
  })

  test("names a twin that passed only when the real test it repeats passed too (honest but wrong code may return the twin's value)", () => {
    const twin: Canary = { ...mustFail, method: "a twin of the file's equal", pairedWith: 'multiplies' }
    const problem = `a canary that must fail passed: ${where(twin)}`
    expect(checkCanaries(report({ 'keeps amber first': 'passed', 'test/calc.test.js > multiplies': 'passed' }), [twin], true)).toEqual([problem])
    expect(checkCanaries(report({ 'keeps amber first': 'passed', multiplies: 'failed' }), [twin], false)).toEqual([])
    expect(checkCanaries(report({ 'keeps amber first': 'passed', multiplies: 'skipped' }), [twin], true)).toEqual([])
    expect(checkCanaries(report({ 'keeps amber first': 'passed' }), [twin], true)).toEqual([])
    expect(checkCanaries(report({ 'keeps amber first': 'failed', multiplies: 'passed' }), [twin], true)).toEqual([])
  })

  test('accepts a must-fail canary that failed or was skipped', () => {
    expect(checkCanaries(report({ 'keeps amber first': 'failed' }), [mustFail], true)).toEqual([])
    expect(checkCanaries(report({ 'keeps amber first': 'skipped' }), [mustFail], true)).toEqual([])
  })

  test('names a must-pass canary that failed or was skipped, with its status, when a real test passed', () => {
    expect(checkCanaries(report({ 'reads cedar last': 'failed' }), [mustPass], true)).toEqual([
      'a canary that must pass did not (failed): test/calc.test.js: "reads cedar last" (deepEqual)',
    ])
    expect(checkCanaries(report({ 'reads cedar last': 'skipped' }), [mustPass], true)).toEqual([`a canary that must pass did not (skipped): ${where(mustPass)}`])
  })

  test('does not hold a failed must-pass canary against a run in which no real test passed (code that breaks every import)', () => {
    expect(checkCanaries(report({ 'reads cedar last': 'failed', multiplies: 'failed' }), [mustPass], false)).toEqual([])
  })

  test('names a canary of either kind that the report leaves out, when a real test passed', () => {
    const results = report({ multiplies: 'passed' })
    expect(checkCanaries(results, [mustFail, mustPass], true)).toEqual([
      'the report leaves out a canary the runner was given: test/calc.test.js: "keeps amber first" (equal)',
      `the report leaves out a canary the runner was given: ${where(mustPass)}`,
    ])
  })

  test('does not hold a left-out canary against a run in which no real test passed', () => {
    expect(checkCanaries(report({ multiplies: 'failed' }), [mustFail, mustPass], false)).toEqual([])
  })

  test('gives one line per canary that is not as it must be, in the order of the canaries', () => {
    const other: Canary = { file: 'test/b.test.js', name: 'handles many delta', kind: 'must-fail', method: 'ok' }
    const results = report({ 'reads cedar last': 'failed', 'keeps amber first': 'failed', 'handles many delta': 'passed' })
    expect(checkCanaries(results, [mustPass, mustFail, other], true)).toEqual([
      `a canary that must pass did not (failed): ${where(mustPass)}`,
      `a canary that must fail passed: ${where(other)}`,
    ])
  })
})

describe("checkCanaries: finding a canary's test in the report", () => {
  test('finds it as the whole id, the last part of a pytest id, or the last part of a JavaScript runner id', () => {
    for (const id of [
      'keeps amber first',
      'tests/test_calc.py::keeps amber first',
      'tests/test_calc.py::TestCalc::keeps amber first',
      'test/calc.test.js > keeps amber first',
      'test/calc.test.js > calc > keeps amber first',
    ]) {
      expect(checkCanaries(report({ [id]: 'passed' }), [mustFail], false), id).toEqual([`a canary that must fail passed: ${where(mustFail)}`])
    }
  })

  test('reads the status of the id that is the canary, not of a real test named alike', () => {
    const results = report({ 'keeps amber first too': 'passed', 'test/calc.test.js > keeps amber first': 'failed' })
    expect(checkCanaries(results, [mustFail], true)).toEqual([])
  })

  test('does not take an id that only ends with the name, or starts with it, for the canary', () => {
    for (const id of ['xkeeps amber first', 'a::bkeeps amber first', 'a >keeps amber first', 'a> keeps amber first', 'keeps amber first > b', 'keeps amber first::b']) {
      expect(checkCanaries(report({ [id]: 'passed', multiplies: 'passed' }), [mustFail], true), id).toEqual([
        `the report leaves out a canary the runner was given: ${where(mustFail)}`,
      ])
    }
  })

  test('reports a must-pass canary the report leaves out as left out, not as one that did not pass', () => {
    expect(checkCanaries(report({ multiplies: 'passed' }), [mustPass], true)).toEqual([`the report leaves out a canary the runner was given: ${where(mustPass)}`])
  })
})
