import { existsSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, inject, test } from 'vitest'
import { templateRoot } from '../../src/workspace/template.ts'
import { defaultWorkspaceRoot } from '../../src/workspace/index.ts'

// The suite's isolation (test/setup/): a run's folders are fresh, each file's are its own, and the harness's
// defaults point into them, whatever TASK_OUTCOME_TEMPLATES / TASK_OUTCOME_WORKDIR the developer exported.

describe('the suite gives every test file its own caches', () => {
  test('the templates and workspaces of this file lie in a folder of their own below the run’s', () => {
    const [templates, workdir] = [templateRoot(), defaultWorkspaceRoot()]
    expect(path.dirname(templates)).toBe(inject('suiteTemplates'))
    expect(path.dirname(workdir)).toBe(inject('suiteWorkdir'))
    expect(path.basename(templates)).toMatch(/^file-/)
    expect(existsSync(templates) && existsSync(workdir)).toBe(true)
  })

  test('the run’s folders are made by this run, not taken from the developer’s environment', () => {
    for (const dir of [inject('suiteTemplates'), inject('suiteWorkdir')]) expect(path.basename(dir)).toMatch(/^task-outcome-suite-(templates|work)-\w{6}$/)
  })
})
