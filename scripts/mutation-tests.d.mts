/** Listed file → the test files written for it (the `--testFiles` of its row in docs/mutation.md). */
export const FAST_TESTS: Readonly<Record<string, readonly string[]>>

/**
 * Splits `files` (listed files a change touched) into those with fast tests, the union of those tests (in the
 * map's order, each once), and those without.
 */
export function fastTestsFor(files: readonly string[], map?: Readonly<Record<string, readonly string[]>>): { mapped: string[]; testFiles: string[]; unmapped: string[] }

/**
 * The listed files whose fast tests are among `changed` (paths from the repository root), in the map's order: a
 * change that weakens a file's tests lowers its score as surely as one to the file, so both are mutated.
 */
export function filesTestedBy(changed: readonly string[], map?: Readonly<Record<string, readonly string[]>>): string[]
