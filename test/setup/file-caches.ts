import { mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, inject } from 'vitest'

// Every test file gets its own template cache and workspace root (TASK_OUTCOME_TEMPLATES, TASK_OUTCOME_WORKDIR),
// below the run's folders (test/setup/suite-root.ts), whatever the developer's environment says: no file reads
// another's templates or leftovers, and the harnesses a test starts (child Vitest runs, the CLI) inherit them.

const templates = await mkdtemp(path.join(inject('suiteTemplates'), 'file-'))
const workdir = await mkdtemp(path.join(inject('suiteWorkdir'), 'file-'))
process.env.TASK_OUTCOME_TEMPLATES = templates
process.env.TASK_OUTCOME_WORKDIR = workdir

afterAll(async () => {
  for (const dir of [templates, workdir]) await rm(dir, { recursive: true, force: true, maxRetries: 3 })
})
