/** How one test ended, as a JUnit report tells it. */
export type TestStatus = 'passed' | 'failed' | 'skipped'

/** The runner a JUnit report came from, detected from its shape; it decides how ids are built. */
export type JUnitFormat = 'pytest' | 'node' | 'vitest' | 'jest' | 'generic'

/**
 * The parsed results of one test run: every test's normalised id and status.
 * A test that appears more than once under the same id (two files with the
 * same test name, under a runner that does not say which file) is `failed` if
 * any occurrence failed, else `skipped` if any was skipped: an ambiguous id
 * never passes on the strength of its twin.
 */
export interface JUnitResults {
  readonly format: JUnitFormat
  readonly tests: ReadonlyMap<string, TestStatus>
}

const rank: Record<TestStatus, number> = { passed: 0, skipped: 1, failed: 2 }

/** Combines two statuses of the same id: the worse one wins (failed > skipped > passed). */
export function worseStatus(a: TestStatus, b: TestStatus): TestStatus {
  // Stryker disable next-line EqualityOperator: equal ranks are one status, so `>` and `>=` answer alike (docs/mutation.md).
  return rank[a] >= rank[b] ? a : b
}
