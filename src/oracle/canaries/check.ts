import type { JUnitResults, TestStatus } from '../junit/results.ts'
import type { Canary } from './lay.ts'

/**
 * Reading the canaries back from a run's report. A must-fail canary that
 * passed means something in the test process made a false assertion pass: the
 * oracle was disarmed, and nothing else that report says can be believed; a
 * twin (a real comparison with another expected value) shows it only when
 * the real test it repeats passed too. A must-pass canary that did not
 * pass, or a canary the report leaves out,
 * means the report is not the runner's account of the tests it was given;
 * that is only evidence when some real test passed (code that breaks every
 * import fails its canaries honestly).
 */

/** The integrity flag the oracle records when a canary or the second channel caught a disarmed or forged oracle. */
export const ORACLE_DISARMED = 'oracle-disarmed'

/** A test's status in the report: the test whose id ends with `name`, `absent` when none does. */
function statusOf(results: JUnitResults, name: string): TestStatus | 'absent' {
  for (const [id, status] of results.tests) {
    if (id === name || id.endsWith(`::${name}`) || id.endsWith(` > ${name}`)) return status
  }
  return 'absent'
}

/**
 * What the canaries say about a report: one line per canary that is not as
 * it must be (empty when all are). `realPassed` tells whether any listed
 * real test passed.
 */
export function checkCanaries(results: JUnitResults, canaries: readonly Canary[], realPassed: boolean): string[] {
  const problems: string[] = []
  for (const canary of canaries) {
    const status = statusOf(results, canary.name)
    const where = `${canary.file}: "${canary.name}" (${canary.method})`
    // A twin's value can be what honest but wrong code returns; it only shows a forgery when its real test passed too.
    const shows = canary.pairedWith === undefined || statusOf(results, canary.pairedWith) === 'passed'
    if (canary.kind === 'must-fail' && status === 'passed') {
      if (shows) problems.push(`a canary that must fail passed: ${where}`)
    } else if (realPassed && status === 'absent') problems.push(`the report leaves out a canary the runner was given: ${where}`)
    else if (realPassed && canary.kind === 'must-pass' && status !== 'passed') problems.push(`a canary that must pass did not (${status}): ${where}`)
  }
  return problems
}
