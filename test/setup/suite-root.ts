import { accessSync, constants } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'

// The suite's global setup: one pair of fresh folders per `vitest run` (a temp folder for templates, one in memory
// for workspaces, as the harness's own default puts them), chosen here and never read from the developer's
// environment, so two runs at once (two clones, two CI passes, a developer's own TASK_OUTCOME_* caches) share
// nothing. Each test file makes its own folders below these (test/setup/file-caches.ts); all go at the end.

declare module 'vitest' {
  interface ProvidedContext {
    /** The run's folder for template caches (one below it per test file). */
    suiteTemplates: string
    /** The run's folder for workspaces (one below it per test file). */
    suiteWorkdir: string
  }
}

/** Where this run's workspaces go: memory (/dev/shm) where the machine has it, as the harness's default. */
function workspaceParent(): string {
  try {
    accessSync('/dev/shm', constants.W_OK)
    return '/dev/shm'
  } catch {
    return os.tmpdir()
  }
}

/** Makes the run's two folders, hands them to the test files, and removes them (and all below) when the run ends. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const templates = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-suite-templates-'))
  const workdir = await mkdtemp(path.join(workspaceParent(), 'task-outcome-suite-work-'))
  project.provide('suiteTemplates', templates)
  project.provide('suiteWorkdir', workdir)
  return async () => {
    for (const dir of [templates, workdir]) await rm(dir, { recursive: true, force: true, maxRetries: 3 })
  }
}
