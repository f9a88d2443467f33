import { defineConfig } from 'vitest/config'
import { experimentProject } from './src/vitest/project.ts'

// Each experiment is a Vitest project: `npx vitest run --project <name>`.
// `unit` is the project's own test suite (`npm test`). No `reporters` here:
// the plugin adds the task-outcome reporter itself, whatever reporters the
// command line names, and Vitest keeps its defaults (github-actions in CI).
export default defineConfig(async () => ({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          pool: 'forks',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // A template cache and workspace root per test file, fresh each run (test/setup/).
          globalSetup: ['test/setup/suite-root.ts'],
          setupFiles: ['test/setup/file-caches.ts'],
        },
      },
      await experimentProject('tasks/examples/experiment.ts'),
      await experimentProject('tasks/demo/experiment.ts'),
      await experimentProject('tasks/skills-demo/experiment.ts'),
      await experimentProject('tasks/pilot/experiment.ts', { exportName: 'pilot' }),
      await experimentProject('tasks/pilot/experiment.ts', { exportName: 'smoke' }),
    ],
  },
}))
