import type { TestProjectInlineConfiguration } from 'vitest/config'

/**
 * The project's own test suite as a Vitest project (`npm test`), shared by vitest.config.ts and the mutation
 * runs' config (vitest.mutate.config.ts), so both run the same tests the same way: forks (tests send signals and
 * start process groups), generous timeouts (real CLIs and sandboxes on a loaded machine), and a template cache
 * and workspace root per test file (test/setup/).
 */
export const unitProject = {
  test: {
    name: 'unit',
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ['test/setup/suite-root.ts'],
    setupFiles: ['test/setup/file-caches.ts'],
  },
} satisfies TestProjectInlineConfiguration
