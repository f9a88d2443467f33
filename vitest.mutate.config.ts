import { defineConfig } from 'vitest/config'
import { unitProject } from './test/setup/unit-project.ts'

// The unit suite alone, for the mutation runs (stryker.config.mjs): without the experiment projects, which
// Stryker would otherwise run against every mutant.
export default defineConfig({ test: unitProject.test })
