import os from 'node:os'
import type { TestProjectInlineConfiguration } from 'vitest/config'

/**
 * How many test files run at once: two at least (one less than the cores on a bigger machine). One file keeps one core
 * busy at most (its time goes to child processes: real CLIs, git, npm, sandboxes), so on a 2-core machine Vitest's own
 * default (one less than the cores) left a core idle; two files at once take a pass from about 1,600 s to 970 s
 * (docs/testing.md, Speed). A project's own `maxWorkers` wins over `--maxWorkers`, so a limit a developer gives in
 * VITEST_MAX_WORKERS (Vitest's own variable) is read here. It is not set by default because child Vitest runs the tests
 * start inherit it and would override their fixtures' own limits. Mutation runs use one worker whatever this says.
 */
function unitMaxWorkers(): number {
  const given = Number(process.env.VITEST_MAX_WORKERS)
  if (Number.isInteger(given) && given > 0) return given
  return Math.max(2, os.availableParallelism() - 1)
}

/**
 * The project's own test suite as a Vitest project (`npm test`), shared by vitest.config.ts and the mutation
 * runs' config (vitest.mutate.config.ts), so both run the same tests the same way: forks (tests send signals and
 * start process groups), two test files at once at least, generous timeouts (real CLIs and sandboxes on a loaded
 * machine), and a template cache and workspace root per test file (test/setup/).
 */
export const unitProject = {
  test: {
    name: 'unit',
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: unitMaxWorkers(),
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ['test/setup/suite-root.ts'],
    setupFiles: ['test/setup/file-caches.ts'],
  },
} satisfies TestProjectInlineConfiguration
