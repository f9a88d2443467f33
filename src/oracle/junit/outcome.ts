import type { JUnitResults, TestStatus } from './results.ts'

/** How the listed tests of a task fared in one run (the record's `oracle` for git-fix tasks). */
export interface ListedOutcome {
  readonly failToPass: { readonly passed: number; readonly total: number }
  readonly passToPass: { readonly passed: number; readonly total: number }
  /** Listed ids that did not pass (FAIL_TO_PASS first, each list in its own order); absent ones included. */
  readonly failing: string[]
}

/** A test's status in a run, `absent` when the report does not list it. */
export function statusIn(results: JUnitResults, id: string): TestStatus | 'absent' {
  return results.tests.get(id) ?? 'absent'
}

/**
 * Checks the task's FAIL_TO_PASS and PASS_TO_PASS tests against a run's
 * results. A listed test the report does not mention counts as failed (a test
 * file that no longer loads, a renamed test), and so does a skipped one.
 */
export function evaluateListed(results: JUnitResults, failToPass: readonly string[], passToPass: readonly string[]): ListedOutcome {
  const failing: string[] = []
  const count = (ids: readonly string[]) => {
    let passed = 0
    for (const id of ids) {
      if (statusIn(results, id) === 'passed') passed++
      else failing.push(id)
    }
    return { passed, total: ids.length }
  }
  const f2p = count(failToPass)
  const p2p = count(passToPass)
  return { failToPass: f2p, passToPass: p2p, failing }
}

/** What a harvest learns from the runs before and after a fix. */
export interface FixClassification {
  /** Passed after the fix, and failed or was absent before it. */
  readonly failToPass: string[]
  /** Passed both before and after. */
  readonly passToPass: string[]
  /** Did not pass after the fix (failed, skipped or absent): not part of the oracle. */
  readonly notPassingAfter: string[]
  /** FAIL_TO_PASS tests that were absent before (their file did not load, or they are new and could not run). */
  readonly absentBefore: string[]
  /** Passed after but were skipped before: left out of the oracle (a skip is not a failure). */
  readonly skippedBefore: string[]
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Splits the tests of the run after the fix into FAIL_TO_PASS and
 * PASS_TO_PASS by their status before it (SWE-bench's definitions). Ids come
 * out sorted, so two harvests of the same fix compare equal.
 */
export function classifyFix(before: JUnitResults, after: JUnitResults): FixClassification {
  const failToPass: string[] = []
  const passToPass: string[] = []
  const notPassingAfter: string[] = []
  const absentBefore: string[] = []
  const skippedBefore: string[] = []
  for (const [id, status] of after.tests) {
    if (status !== 'passed') {
      notPassingAfter.push(id)
      continue
    }
    const earlier = statusIn(before, id)
    if (earlier === 'passed') passToPass.push(id)
    else if (earlier === 'skipped') skippedBefore.push(id)
    else {
      failToPass.push(id)
      if (earlier === 'absent') absentBefore.push(id)
    }
  }
  return {
    failToPass: failToPass.sort(byId),
    passToPass: passToPass.sort(byId),
    notPassingAfter: notPassingAfter.sort(byId),
    absentBefore: absentBefore.sort(byId),
    skippedBefore: skippedBefore.sort(byId),
  }
}
