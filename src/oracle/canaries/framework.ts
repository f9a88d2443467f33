/**
 * Which test framework a task's tests are written in, as far as the oracle's
 * canaries need to know: they are written in the same framework, so they run
 * in the same process and import graph as the real tests.
 */

/** The frameworks the oracle writes canaries for. */
export type CanaryFramework = 'node-test' | 'vitest' | 'pytest'

/**
 * The framework of a task: pytest when the command runs pytest or the tests
 * are Python; Vitest when the command names vitest; node:test when it runs
 * `node --test`. Null for anything else (no canaries can be written).
 */
export function canaryFramework(command: string, testFiles: readonly string[]): CanaryFramework | null {
  if (/\bpytest\b/.test(command) || (testFiles.length > 0 && testFiles.every((file) => file.endsWith('.py')))) return 'pytest'
  if (/\bvitest\b/.test(command)) return 'vitest'
  if (/(?:^|[\s;&|(])--test(?:\s|=|$)/.test(command)) return 'node-test'
  return null
}
