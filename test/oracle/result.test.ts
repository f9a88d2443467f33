import { describe, expect, test } from 'vitest'
import { OracleSchema, TestsOracleSchema, VerifyOracleSchema } from '../../src/oracle/result.ts'

// The oracle's result as the run record keeps it: exactly the fields each oracle writes, nothing else.

const tests = { failToPass: { passed: 1, total: 2 }, passToPass: { passed: 3, total: 3 }, failing: ['tests/test_a.py::test_b'] }

describe("the oracle's result", () => {
  test("a git-fix task's oracle: the counts of both lists and the ids that did not pass", () => {
    expect(TestsOracleSchema.parse(tests)).toEqual(tests)
    expect(OracleSchema.parse(tests)).toEqual(tests)
  })

  test("a folder task's oracle: verify.sh's exit status, any whole number", () => {
    for (const verifyExit of [0, 1, 124, -1]) expect(OracleSchema.parse({ verifyExit })).toEqual({ verifyExit })
    expect(VerifyOracleSchema.parse({ verifyExit: 0 })).toEqual({ verifyExit: 0 })
  })

  test.each([
    ['a field no oracle writes', { ...tests, extra: 1 }],
    ['a count with a field of its own', { ...tests, failToPass: { passed: 1, total: 2, skipped: 0 } }],
    ['a negative count', { ...tests, passToPass: { passed: -1, total: 3 } }],
    ['a count that is no whole number', { ...tests, failToPass: { passed: 0.5, total: 2 } }],
    ['a missing list of failing ids', { failToPass: tests.failToPass, passToPass: tests.passToPass }],
    ['a failing id that is no string', { ...tests, failing: [1] }],
    ['an exit status that is no whole number', { verifyExit: 0.5 }],
    ['an exit status beside the tests', { ...tests, verifyExit: 0 }],
    ['nothing', {}],
  ])('refuses %s', (_what, value) => {
    expect(OracleSchema.safeParse(value).success).toBe(false)
  })
})
