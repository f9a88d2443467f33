import { describe, expect, it } from 'vitest'
import { classifyFix, evaluateListed, statusIn } from '../../../src/oracle/junit/outcome.ts'
import type { JUnitResults, TestStatus } from '../../../src/oracle/junit/results.ts'
import { worseStatus } from '../../../src/oracle/junit/results.ts'

// What the oracle and the harvest conclude from parsed reports: a listed test passes only when the report says it
// passed; a fix's tests split by SWE-bench's definitions, every list sorted.

const run = (tests: Record<string, TestStatus>): JUnitResults => ({ format: 'generic', tests: new Map(Object.entries(tests)) })

describe('evaluateListed', () => {
  it('counts a listed test passed only when the report says passed; failed, skipped and absent ones are failing, FAIL_TO_PASS first, each list in its order', () => {
    const results = run({ f1: 'passed', f2: 'failed', f3: 'skipped', p1: 'passed', p2: 'failed' })
    expect(evaluateListed(results, ['f3', 'f1', 'f2', 'f-gone'], ['p2', 'p1', 'p-gone'])).toEqual({
      failToPass: { passed: 1, total: 4 },
      passToPass: { passed: 1, total: 3 },
      failing: ['f3', 'f2', 'f-gone', 'p2', 'p-gone'],
    })
  })

  it('every listed test passed: nothing failing', () => {
    expect(evaluateListed(run({ f: 'passed', p: 'passed', other: 'failed' }), ['f'], ['p'])).toEqual({
      failToPass: { passed: 1, total: 1 },
      passToPass: { passed: 1, total: 1 },
      failing: [],
    })
  })

  it('statusIn names a test the report lacks absent', () => {
    expect([statusIn(run({ a: 'skipped' }), 'a'), statusIn(run({ a: 'skipped' }), 'b')]).toEqual(['skipped', 'absent'])
  })
})

describe('classifyFix', () => {
  it('splits the tests after the fix by their status before it, each list sorted', () => {
    const before = run({ 'p-b': 'passed', 'p-a': 'passed', 'f-b': 'failed', 's-b': 'skipped', 's-a': 'skipped', 'n-a': 'passed' })
    const after = run({
      'p-b': 'passed',
      'f-new': 'passed',
      'f-b': 'passed',
      'p-a': 'passed',
      's-b': 'passed',
      's-a': 'passed',
      'n-b': 'skipped',
      'n-a': 'failed',
    })
    expect(classifyFix(before, after)).toEqual({
      failToPass: ['f-b', 'f-new'],
      passToPass: ['p-a', 'p-b'],
      notPassingAfter: ['n-a', 'n-b'],
      absentBefore: ['f-new'],
      skippedBefore: ['s-a', 's-b'],
    })
  })

  it('sorts by code unit, equal ids kept (uppercase before lowercase, a prefix first)', () => {
    const after = run({ b: 'passed', a: 'passed', B: 'passed', ab: 'passed' })
    expect(classifyFix(run({}), after).failToPass).toEqual(['B', 'a', 'ab', 'b'])
    expect(classifyFix(run({}), after).absentBefore).toEqual(['B', 'a', 'ab', 'b'])
  })
})

describe('worseStatus', () => {
  it('failed over skipped over passed, in either order', () => {
    expect([worseStatus('passed', 'failed'), worseStatus('failed', 'passed'), worseStatus('skipped', 'passed'), worseStatus('passed', 'skipped')]).toEqual([
      'failed',
      'failed',
      'skipped',
      'skipped',
    ])
    expect([worseStatus('failed', 'skipped'), worseStatus('skipped', 'failed'), worseStatus('passed', 'passed')]).toEqual(['failed', 'failed', 'passed'])
  })
})
