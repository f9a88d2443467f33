import { defineConfig } from 'vitest/config'
import { experimentProject } from './src/vitest/project.ts'
import { unitProject } from './test/setup/unit-project.ts'

// Each experiment is a Vitest project: `npx vitest run --project <name>`.
// `unit` is the project's own test suite (`npm test`). No `reporters` here:
// the plugin adds the task-outcome reporter itself, whatever reporters the
// command line names, and Vitest keeps its defaults (github-actions in CI).
export default defineConfig(async () => ({
  test: {
    projects: [
      unitProject,
      await experimentProject('tasks/examples/experiment.ts'),
      await experimentProject('tasks/demo/experiment.ts'),
      await experimentProject('tasks/skills-demo/experiment.ts'),
      await experimentProject('tasks/pilot/experiment.ts', { exportName: 'pilot' }),
      await experimentProject('tasks/pilot/experiment.ts', { exportName: 'smoke' }),
    ],
  },
}))
