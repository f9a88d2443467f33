import { describe, expect, it } from 'vitest'
import { NODE_TEST_COMMAND } from '../helpers/throwaway.ts'
import { judgedFixture } from './git-fix-task.ts'
import { calc, calculatorTasks, eventForger, SPARE_LAID_CHECKS } from './node-hostile-sources.ts'

// Code in the test process rewrites the process's own account of its tests: node --test's child writes each event as
// a v8 frame on its stdout, and a source module that wraps process.stdout.write turns the failures about the values
// it returned into passes. The report and the runner's TAP then both say the real test passed; what catches it is a
// check that calls the same code and must fail: the decoys, and the twin of one of the file's own comparisons that
// the oracle writes among the file's tests.
const literal = judgedFixture(() => calculatorTasks(NODE_TEST_COMMAND), 'canaries-events-')
const structured = judgedFixture(() => calculatorTasks(NODE_TEST_COMMAND, 'assert.deepEqual({ product: mul(2, 3) }, { product: 6 })'), 'canaries-events-deep-')

describe('a forger that rewrites the test process’s events', () => {
  it('flips the real failure (it reaches both report and runner), and the decoys that call its code catch it: unsolved, oracle-disarmed', async () => {
    const verdict = await literal.judge({ 'src/calc.js': eventForger() })
    expect(verdict.stderr).toMatch(/FLIPPED [1-9]/)
    expect(verdict.oracle).toMatchObject({ failToPass: { passed: 1, total: 1 } })
    expect(verdict.solved).toBe(false)
    expect(verdict.integrityFlags).toHaveLength(1)
    // A family canary whose literal happens to be a value `mul` returned is flipped as well.
    expect(verdict.integrityFlags![0]).toMatch(/^oracle-disarmed: a canary that must fail passed: test\/calc[\w-]*\.test\.js: ".+" \(.+\)/)
  })

  it('spares the decoys and the canaries’ block it knows of, and is caught by the twin among the real tests', async () => {
    const verdict = await literal.judge({ 'src/calc.js': eventForger(SPARE_LAID_CHECKS) })
    expect(verdict.stderr).toMatch(/FLIPPED [1-9]/)
    expect(verdict.oracle).toMatchObject({ failToPass: { passed: 1, total: 1 } })
    expect(verdict.solved).toBe(false)
    expect(verdict.integrityFlags![0]).toMatch(/^oracle-disarmed: a canary that must fail passed: test\/calc-\w+\.test\.js: ".+" \(a twin of the file's equal\)/)
  })

  it('where the fix compares structures (a comparison no decoy repeats), is caught by a twin there too', async () => {
    const verdict = await structured.judge({ 'src/calc.js': eventForger(SPARE_LAID_CHECKS) })
    expect(verdict.stderr).toMatch(/FLIPPED [1-9]/)
    expect(verdict.oracle).toMatchObject({ failToPass: { passed: 1, total: 1 } })
    expect(verdict.solved).toBe(false)
    expect(verdict.integrityFlags![0]).toMatch(/^oracle-disarmed: a canary that must fail passed: test\/calc-\w+\.test\.js: ".+" \(a twin of the file's (?:deepEqual|equal)\)/)
  })

  it('leaves an honest fix of either task solved with no flag (its twin fails honestly)', async () => {
    for (const oracle of [literal, structured]) {
      const verdict = await oracle.judge({ 'src/calc.js': calc('a * b') })
      expect(verdict.solved).toBe(true)
      expect(verdict.integrityFlags).toEqual([])
    }
  })
})
