import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

// A real Vitest process with GitHub's environment variables set, as a job on GitHub Actions has them.

async function githubEnv(root: string): Promise<{ env: Record<string, string>; summaryFile: string }> {
  const summaryFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'task-outcome-summary-')), 'step-summary.md')
  await writeFile(summaryFile, '')
  return { env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile, GITHUB_WORKSPACE: root }, summaryFile }
}

describe('in GitHub Actions', () => {
  test('--reporter=github-actions: a notice per recorded run at its task, and the verdict and per-arm table in the job summary', async () => {
    const fixture = await createExperimentFixture(simpleTasks(2))
    const { env, summaryFile } = await githubEnv(fixture.root)
    const result = await fixture.vitest(['--reporter=github-actions'], { env })
    expect(result.exitCode, result.all).toBe(0)
    expect((await fixture.runs()).length).toBe(8)

    const notices = String(result.stdout)
      .split('\n')
      .filter((line) => line.startsWith('::notice '))
    expect(notices).toHaveLength(8)
    expect(notices).toContain('::notice file=tasks/fixture/001-task-1/metadata.json,line=1,title=001-task-1 › gold › seed 1::solved · $0.0000 · 0 turns')
    expect(notices.filter((line) => line.includes('file=tasks/fixture/002-task-2/metadata.json') && line.includes('::unsolved · $0.0000'))).toHaveLength(2)

    const summary = await readFile(summaryFile, 'utf8')
    expect(summary).toContain('### task-outcome · fixture')
    expect(summary).toMatch(/verdict: (supported|not supported)/)
    expect(summary).toContain('| arm | runs | solved | timeouts | mean cost |')
    expect(summary).toContain('| gold | 4 | 4 | 0 | $0.0000 |')
    expect(summary).toContain('| noop | 4 | 0 | 0 | $0.0000 |')
  })

  test('a failed measurement is an error annotation at its task, not in the harness source', async () => {
    const fixture = await createExperimentFixture(simpleTasks(1), { seeds: 1 })
    await writeFile(path.join(fixture.setDir, '001-task-1', 'solution', 'solve.sh'), '#!/usr/bin/env bash\nexit 3\n')
    const { env } = await githubEnv(fixture.root)
    const result = await fixture.vitest(['--reporter=github-actions'], { env })
    expect(result.exitCode).toBe(1)
    const errors = String(result.stdout)
      .split('\n')
      .filter((line) => line.startsWith('::error '))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/file=[^,]*tasks\/fixture\/001-task-1\/metadata\.json/)
    expect(errors[0]).toContain('the reference solution')
    expect(errors[0]).not.toContain('src/vitest/')
  })
})
