import { transcriptPath } from './artifacts.ts'
import type { RecordedRun } from './record.ts'

/**
 * What a record says against itself: fields the harness derives from one
 * another (the outcome from the oracle, the cost source from the outcome, the
 * transcript's path from the run's identity) that disagree. The harness never
 * writes such a record, so one is an edit made after the run (a run marked
 * solved beside `verifyExit: 1`). Only fields present are compared: records
 * built by hand for an analysis may carry fewer.
 */
export function contradictions(record: RecordedRun): string[] {
  const found: string[] = []
  if (record.solved !== (record.outcome === 'solved')) found.push(`solved is ${record.solved} but outcome is "${record.outcome}"`)
  if ((record.outcome === 'timeout') !== (record.costSource === 'budget-cap')) {
    found.push(`outcome "${record.outcome}" with costSource "${record.costSource}" (a timeout, and only a timeout, is charged the budget cap)`)
  }
  const oracle = record.oracle
  if (oracle !== undefined && oracle !== null) {
    if ('verifyExit' in oracle) {
      if (record.solved && oracle.verifyExit !== 0) found.push(`solved, but the oracle says verifyExit ${oracle.verifyExit}`)
      if (record.outcome === 'unsolved' && oracle.verifyExit === 0) found.push('unsolved, but the oracle says verifyExit 0')
    } else {
      const { failToPass, passToPass, failing } = oracle
      const notPassing = failToPass.total - failToPass.passed + (passToPass.total - passToPass.passed)
      if (failToPass.passed > failToPass.total || passToPass.passed > passToPass.total) found.push('the oracle counts more tests passed than listed')
      else if (notPassing !== failing.length) found.push(`the oracle lists ${failing.length} failing test(s) but its counts leave ${notPassing} not passing`)
      const allPassed = notPassing === 0 && failing.length === 0 && failToPass.total > 0
      if (record.solved && !allPassed)
        found.push(`solved, but the oracle has FAIL_TO_PASS ${failToPass.passed}/${failToPass.total}, PASS_TO_PASS ${passToPass.passed}/${passToPass.total}`)
      if (record.outcome === 'unsolved' && allPassed) found.push('unsolved, but every FAIL_TO_PASS and PASS_TO_PASS test passed')
    }
  }
  if (record.transcript !== undefined && record.transcriptSha256 !== undefined && (record.transcript === null) !== (record.transcriptSha256 === null)) {
    found.push('transcript and transcriptSha256 must both be set or both be null')
  }
  if (typeof record.transcript === 'string' && record.transcript !== transcriptPath(record)) {
    found.push(`transcript is "${record.transcript}", not this run's "${transcriptPath(record)}"`)
  }
  if (typeof record.startedAt === 'string' && typeof record.finishedAt === 'string' && Date.parse(record.finishedAt) < Date.parse(record.startedAt)) {
    found.push('finishedAt is before startedAt')
  }
  return found
}
