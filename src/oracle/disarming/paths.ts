/**
 * What a string in the agent's code names, for the read flags: a `/proc`
 * path, or a test path. Strings are read as the analysis can build them, with
 * `\0` standing for any part it cannot (a template's `${…}`, a variable in a
 * concatenation): `/proc/${ppid}/cmdline` is `/proc/\0/cmdline`. The regular
 * expressions' sources are also the Python analysis's, so both languages
 * judge a string alike.
 */

/** A path in `/proc` (or the folder itself), possibly as a `file:` URL. */
export const PROC_PATH_SOURCE = String.raw`^(?:file://)?/proc(?:[/\x00]|$)`

/**
 * A test path: a test file's name (`add.test.mjs`, `x.spec.ts`, `.test.`), a test folder (`test/`, `../tests/x`,
 * `./spec`, `__tests__`), or pytest's `test_*.py` / `*_test.py`. A bare word (`'test'`) or a file named `spec.ts`
 * is not one.
 */
export const TEST_PATH_SOURCE = String.raw`\.(?:test|spec)s?[.\x00]|(?:^|[/.\x00])(?:tests?|specs?)/|/(?:tests?|specs?)$|__tests__|(?:^|[/\x00])test_[^/]*\.py$|_test\.py$`

/** A regular expression that matches test files: `/\.test\./`, `/(test|spec)\.[jt]s$/`, `/^test_/`. */
export const TEST_PATTERN_SOURCE = String.raw`(?:test|spec)s?\??(?:\\\.|\\/|\)|\|)|(?:\\\.|\\/|_|\^)(?:test|spec)`

const PROC_PATH = new RegExp(PROC_PATH_SOURCE)
const TEST_PATH = new RegExp(TEST_PATH_SOURCE)
const TEST_PATTERN = new RegExp(TEST_PATTERN_SOURCE)

/** Whether the string (with `\0` for unknown parts) names a `/proc` path. */
export function isProcPath(value: string): boolean {
  return PROC_PATH.test(value)
}

/** Whether the string (with `\0` for unknown parts) names a test path. */
export function isTestPath(value: string): boolean {
  return TEST_PATH.test(value)
}

/** Whether a regular expression's source matches test file names. */
export function isTestPattern(source: string): boolean {
  return TEST_PATTERN.test(source)
}
