import picomatch from 'picomatch/posix.js'

/**
 * Which repository paths are tests, which are source, and which the oracle
 * never takes from an agent. Globs use `/` and picomatch syntax (`**`,
 * `{a,b}`), and match dotfiles.
 */

/** Test files unless `--tests` says otherwise: pytest's and the JavaScript runners' naming conventions. */
export const DEFAULT_TEST_GLOBS: readonly string[] = ['**/test_*.py', '**/*_test.py', '**/*.{test,spec}.{js,jsx,mjs,cjs,ts,tsx,mts,cts}', '**/__tests__/**']

/** Source files unless `--source` says otherwise: Python, JavaScript and TypeScript files that are not tests. */
export const DEFAULT_SOURCE_GLOBS: readonly string[] = ['**/*.{py,js,jsx,mjs,cjs,ts,tsx,mts,cts}']

/**
 * What decides how an interpreter, a package manager or a test runner starts,
 * whatever the code says: package-manager configuration, interpreter start-up
 * hooks and version pins, the test runners', bundler's and transpiler's
 * configuration (TypeScript's included). Test infrastructure (below) holds all of it, and a folder
 * task's oracle copy always has it as `starting/` does
 * (`PLANTED_CONFIGURATION_GLOBS` in `oracle/folder-defaults.ts`).
 */
export const RUNNER_CONFIGURATION_GLOBS: readonly string[] = [
  '**/.npmrc',
  '**/.yarnrc',
  '**/.yarnrc.*',
  '**/.pnpmfile.cjs',
  '**/sitecustomize.py',
  '**/usercustomize.py',
  '**/*.pth',
  '**/.python-version',
  '**/.node-version',
  '**/.nvmrc',
  '**/conftest.py',
  '**/pytest.ini',
  '**/tox.ini',
  '**/setup.cfg',
  '**/vitest.config.*',
  '**/vite.config.*',
  // Vitest's own names for a project's config file ((vitest|vite).*.config.*), which test.projects may list, and its workspace file.
  '**/vitest.*.config.*',
  '**/vite.*.config.*',
  '**/vitest.workspace.*',
  '**/tsconfig*.json',
  '**/jest.config.*',
  '**/.mocharc*',
  '**/babel.config.*',
  '**/.babelrc',
  '**/.babelrc.*',
]

/**
 * Test infrastructure: whatever the task's test globs, an agent's change to
 * one of these never reaches the oracle (test folders and their fixtures,
 * the runner configuration above, and what else decides how the runner starts
 * or what it collects: workspace, setup and project files, TypeScript
 * configuration, nox and karma).
 * `package.json` and `pyproject.toml` are not here: a real fix may change
 * them; their test-side fields are the fix's ({@link PACKAGE_JSON_TEST_FIELDS}).
 */
export const TEST_INFRASTRUCTURE_GLOBS: readonly string[] = [
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/spec/**',
  ...RUNNER_CONFIGURATION_GLOBS,
  '**/noxfile.py',
  '**/vitest.setup.*',
  '**/jest.setup.*',
  '**/karma.conf.*',
  '**/vitest.projects.*',
  '**/jsconfig*.json',
]

/**
 * Fields of a `package.json` that decide how tests start or resolve, not what
 * the code does: an agent's change to the file reaches the oracle, but with
 * these fields as the clean parent has them.
 */
export const PACKAGE_JSON_TEST_FIELDS: readonly string[] = ['scripts', 'imports', 'type', 'jest', 'mocha', 'ava', 'babel', 'vitest']

/** pyproject.toml tables that configure pytest: an agent's change to the file reaches the oracle without them. */
export const PYPROJECT_TEST_TABLE = /^\[+\s*tool\.pytest(?:[.\]\s])/

/** A compiled set of globs. */
export type PathMatcher = (file: string) => boolean

/** Compiles globs into one matcher (a path matches when any glob does). */
export function pathMatcher(globs: readonly string[]): PathMatcher {
  if (globs.length === 0) return () => false
  return picomatch(globs, { dot: true })
}

/** How the oracle tells a test path from a path it takes from the agent. */
export interface TestPathRule {
  /** The task's test globs (`metadata.test_globs`, or the defaults). */
  readonly testGlobs: readonly string[]
  /** The fix's test files (always tests). */
  readonly testFiles: readonly string[]
}

/**
 * A predicate that is true for every path the oracle must not take from the
 * agent: the fix's test files, anything the task's test globs match, and test
 * infrastructure.
 */
export function testPathPredicate(rule: TestPathRule): PathMatcher {
  const tests = pathMatcher(rule.testGlobs)
  const infrastructure = pathMatcher(TEST_INFRASTRUCTURE_GLOBS)
  const files = new Set(rule.testFiles)
  return (file) => files.has(file) || tests(file) || infrastructure(file)
}

/**
 * The test files given to the runner as `{tests}`: those the test globs
 * match. Changed test infrastructure (a conftest, a test helper) is placed in
 * the copy but not named to the runner; when no file matches, all are named.
 */
export function runnerTestFiles(testFiles: readonly string[], testGlobs: readonly string[]): string[] {
  const isTest = pathMatcher(testGlobs)
  const matching = testFiles.filter((file) => isTest(file))
  return matching.length > 0 ? matching : [...testFiles]
}
