import { execa } from 'execa'
import { describe, expect, test } from 'vitest'
import { repoRoot, VITEST_BIN } from '../helpers/experiment-fixture.ts'

// `vitest list` over the repository's own `examples` experiment (three task folders, two arms, two seeds), in a real
// Vitest process. Vitest 4.1 lists by running each test module; Vitest 5 parses them instead (`--static-parse`, its
// default), so a task folder's generated module must declare its cases where a parser can see them.

/** The cases `vitest list` prints for the examples experiment, in order. */
async function listedCases(mode: '--static-parse' | '--no-static-parse'): Promise<string[]> {
  const result = await execa(process.execPath, [VITEST_BIN, 'list', mode, '--project', 'examples'], {
    cwd: repoRoot,
    env: { NO_COLOR: '1', CI: '1' },
    reject: false,
    all: true,
  })
  expect(result.exitCode, result.all).toBe(0)
  expect(result.all).not.toContain('No test suite found')
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('[examples] '))
    .map((line) => line.slice(line.indexOf(' > ') + 3))
}

describe('`vitest list` shows every run of an experiment', () => {
  test('parsing the task modules (Vitest 5’s default) lists the same cases, in each task the same order, as running them', { timeout: 300_000 }, async () => {
    const parsed = await listedCases('--static-parse')
    const ran = await listedCases('--no-static-parse')
    for (const task of ['001-greeting-punctuation', '002-sum-skips-header', '003-config-default-port']) {
      const ofTask = (names: string[]) => names.filter((name) => name.startsWith(`${task} › `))
      expect(ofTask(parsed)).toEqual(ofTask(ran))
      expect(ofTask(parsed).sort()).toEqual([`${task} › gold › seed 1`, `${task} › gold › seed 2`, `${task} › noop › seed 1`, `${task} › noop › seed 2`])
    }
    expect(parsed).toHaveLength(12)
    expect(ran).toHaveLength(12)
  })
})
