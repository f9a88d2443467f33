import os from 'node:os'
import type { TestProjectInlineConfiguration } from 'vitest/config'

/**
 * How many test files run at once: Vitest's own default (one less than the cores, at least one). Two files at once on
 * a 2-core machine halves a pass's time (docs/testing.md, Speed) but has not yet held through a whole CI run (disk
 * floors in limits tests, 120 s timeouts under load), so it is opt-in: VITEST_MAX_WORKERS=2.
 * A project's own `maxWorkers` wins over `--maxWorkers`, so the limit a developer gives in VITEST_MAX_WORKERS
 * (Vitest's own variable) is read here. Mutation runs are unaffected: Stryker runs one worker whatever this says.
 */
function unitMaxWorkers(): number {
  const given = Number(process.env.VITEST_MAX_WORKERS)
  if (Number.isInteger(given) && given > 0) return given
  return Math.max(1, os.availableParallelism() - 1)
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
