import { describe, expect, test } from 'vitest'
import { contradictions } from '../../src/runs/consistency.ts'
import type { RecordedRun, RunRecord } from '../../src/runs/record.ts'
import { sampleRecord } from '../helpers/runs-file.ts'

// What a record says against itself, field pair by field pair: the harness never writes a contradiction, so each
// one found is an edit made after the run, and each consistent record passes untouched.

const unsolvedOracle = { failToPass: { passed: 0, total: 1 }, passToPass: { passed: 2, total: 2 }, failing: ['f2p'] }
const found = (overrides: Partial<RunRecord>) => contradictions(sampleRecord(overrides))
/** A record without an oracle result (one built by hand for an analysis). */
const foundWithoutOracle = (overrides: Partial<RunRecord>) => {
  const { oracle: _oracle, ...record } = sampleRecord(overrides)
  return contradictions(record)
}

describe('records the harness writes contradict nothing', () => {
  test('solved, unsolved, a timeout, a verify.sh task either way, a run without a transcript', () => {
    expect(found({})).toEqual([])
    expect(found({ outcome: 'unsolved', solved: false, oracle: unsolvedOracle })).toEqual([])
    expect(found({ outcome: 'timeout', solved: false, costSource: 'budget-cap', oracle: unsolvedOracle })).toEqual([])
    expect(found({ oracle: { verifyExit: 0 } })).toEqual([])
    expect(found({ outcome: 'unsolved', solved: false, oracle: { verifyExit: 1 } })).toEqual([])
    expect(foundWithoutOracle({ transcript: null, transcriptSha256: null })).toEqual([])
    expect(found({ finishedAt: '2026-11-30T10:00:00.000Z' })).toEqual([])
  })

  test('a record read from a hand-written line with a null oracle, or with only one of the transcript fields, is compared on the rest', () => {
    const read = (fields: object) => contradictions(JSON.parse(JSON.stringify(fields)) as RecordedRun)
    expect(read({ ...sampleRecord(), oracle: null })).toEqual([])
    const { transcript: _t, transcriptSha256: _s, ...withoutTranscript } = sampleRecord()
    expect(read({ ...withoutTranscript, transcriptSha256: null })).toEqual([])
    expect(read({ ...withoutTranscript, transcript: null })).toEqual([])
  })

  test('a record built by hand with fewer fields is compared on the fields it has', () => {
    const { oracle: _o, transcript: _t, transcriptSha256: _s, startedAt: _a, finishedAt: _f, ...fewer } = sampleRecord()
    expect(contradictions(fewer)).toEqual([])
  })
})

describe('each contradiction is named', () => {
  test('solved against outcome, both ways', () => {
    expect(foundWithoutOracle({ outcome: 'unsolved' })).toEqual(['solved is true but outcome is "unsolved"'])
    expect(foundWithoutOracle({ solved: false })).toEqual(['solved is false but outcome is "solved"'])
  })

  test('the budget cap charged to anything but a timeout, and a timeout charged anything else', () => {
    const charged = '(a timeout, and only a timeout, is charged the budget cap)'
    expect(found({ costSource: 'budget-cap' })).toEqual([`outcome "solved" with costSource "budget-cap" ${charged}`])
    expect(found({ outcome: 'timeout', solved: false, oracle: unsolvedOracle })).toEqual([`outcome "timeout" with costSource "agent" ${charged}`])
  })

  test('verify.sh: solved with a failing exit, unsolved with a passing one', () => {
    expect(found({ oracle: { verifyExit: 1 } })).toEqual(['solved, but the oracle says verifyExit 1'])
    expect(found({ outcome: 'unsolved', solved: false, oracle: { verifyExit: 0 } })).toEqual(['unsolved, but the oracle says verifyExit 0'])
  })

  test('test counts: more passed than listed, in either set', () => {
    expect(found({ outcome: 'unsolved', solved: false, oracle: { failToPass: { passed: 2, total: 1 }, passToPass: { passed: 2, total: 2 }, failing: [] } })).toEqual([
      'the oracle counts more tests passed than listed',
    ])
    expect(found({ outcome: 'unsolved', solved: false, oracle: { failToPass: { passed: 1, total: 1 }, passToPass: { passed: 3, total: 2 }, failing: [] } })).toEqual([
      'the oracle counts more tests passed than listed',
    ])
  })

  test('test counts: failing tests listed other than the counts leave not passing, in either set', () => {
    expect(found({ outcome: 'unsolved', solved: false, oracle: { ...unsolvedOracle, failing: [] } })).toEqual([
      'the oracle lists 0 failing test(s) but its counts leave 1 not passing',
    ])
    expect(found({ outcome: 'unsolved', solved: false, oracle: { failToPass: { passed: 1, total: 1 }, passToPass: { passed: 1, total: 2 }, failing: ['a', 'b'] } })).toEqual([
      'the oracle lists 2 failing test(s) but its counts leave 1 not passing',
    ])
  })

  test('solved with every count passing but a failing test listed: both the mismatch and the solved run are named', () => {
    expect(found({ oracle: { failToPass: { passed: 1, total: 1 }, passToPass: { passed: 2, total: 2 }, failing: ['x'] } })).toEqual([
      'the oracle lists 1 failing test(s) but its counts leave 0 not passing',
      'solved, but the oracle has FAIL_TO_PASS 1/1, PASS_TO_PASS 2/2',
    ])
  })

  test('solved while a test did not pass, or with no FAIL_TO_PASS test at all; unsolved while every test passed', () => {
    expect(found({ oracle: unsolvedOracle })).toEqual(['solved, but the oracle has FAIL_TO_PASS 0/1, PASS_TO_PASS 2/2'])
    expect(found({ oracle: { failToPass: { passed: 1, total: 1 }, passToPass: { passed: 1, total: 2 }, failing: ['p2p'] } })).toEqual([
      'solved, but the oracle has FAIL_TO_PASS 1/1, PASS_TO_PASS 1/2',
    ])
    expect(found({ oracle: { failToPass: { passed: 0, total: 0 }, passToPass: { passed: 2, total: 2 }, failing: [] } })).toEqual([
      'solved, but the oracle has FAIL_TO_PASS 0/0, PASS_TO_PASS 2/2',
    ])
    expect(found({ outcome: 'unsolved', solved: false })).toEqual(['unsolved, but every FAIL_TO_PASS and PASS_TO_PASS test passed'])
  })

  test('a transcript without its hash, or a hash without its transcript', () => {
    const both = 'transcript and transcriptSha256 must both be set or both be null'
    expect(found({ transcriptSha256: null })).toEqual([both])
    expect(found({ transcript: null })).toEqual([both])
  })

  test("a transcript at another run's path", () => {
    expect(found({ transcript: 'transcripts/001-a/baseline/seed-2.jsonl' })).toEqual([
      `transcript is "transcripts/001-a/baseline/seed-2.jsonl", not this run's "${sampleRecord().transcript}"`,
    ])
  })

  test('a run that finished before it started', () => {
    expect(found({ finishedAt: '2026-11-30T09:59:59.999Z' })).toEqual(['finishedAt is before startedAt'])
  })

  test('every contradiction of a record at once, in order', () => {
    expect(found({ solved: false, costSource: 'budget-cap', finishedAt: '2026-11-30T09:00:00.000Z' })).toEqual([
      'solved is false but outcome is "solved"',
      'outcome "solved" with costSource "budget-cap" (a timeout, and only a timeout, is charged the budget cap)',
      'finishedAt is before startedAt',
    ])
  })
})
