import { readFileSync } from 'node:fs'
import path from 'node:path'
import { execa, execaSync } from 'execa'
import { expect, test } from 'vitest'
import { SUPPORTED_NODE, unsupportedNodeMessage } from '../src/version.ts'
import { createExperimentFixture, repoRoot, simpleTasks } from './helpers/experiment-fixture.ts'

// The machine's own Node (Debian's), when it is below the supported range: the real binary a user would meet.
const OLD_NODE = '/usr/bin/node'
const oldNodeVersion = (() => {
  try {
    const version = execaSync(OLD_NODE, ['--version']).stdout
    return unsupportedNodeMessage(version) === null ? null : version
  } catch {
    return null
  }
})()

test("the supported range is package.json's engines.node", () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } }
  expect(pkg.engines.node).toBe(SUPPORTED_NODE)
})

test('Node below 22.13, and 23, are refused in one line naming the version and the range; 22.13+ and 24+ are not', () => {
  for (const version of ['v20.20.2', '22.12.0', '23.11.1', '18.0.0']) {
    const message = unsupportedNodeMessage(version)
    expect(message).toBe(`task-outcome: Node ${version.replace(/^v/, '')} is not supported (it needs Node ^22.13.0 || >=24.0.0); run it with Node 22.13 or later, or 24.`)
  }
  for (const version of ['22.13.0', 'v22.20.1', '24.0.0', '24.22.3', '25.1.0']) expect(unsupportedNodeMessage(version)).toBeNull()
})

// Skipped where the machine has no Node below the supported range at /usr/bin/node (there is nothing old to run).
test.skipIf(oldNodeVersion === null)(
  `on an old Node the CLI and an experiment project stop with that one line, before anything runs${oldNodeVersion === null ? ' — SKIPPED: no Node below the supported range at /usr/bin/node' : ''}`,
  async () => {
    const cli = await execa(OLD_NODE, ['bin/task-outcome.js', 'harvest', '--help'], { cwd: repoRoot, reject: false, all: true })
    expect(cli.exitCode).toBe(1)
    expect(cli.all).toBe(unsupportedNodeMessage(oldNodeVersion!))
    const fixture = await createExperimentFixture(simpleTasks(1), { seeds: 1 })
    const run = await fixture.vitest([], { node: OLD_NODE })
    expect(run.exitCode).toBe(1)
    expect(run.all).toContain(unsupportedNodeMessage(oldNodeVersion!))
    expect(run.all.split('\n').filter((line) => line.startsWith('task-outcome:'))).toHaveLength(1)
    expect(await fixture.runsText()).toBe('')
  },
  120_000,
)
