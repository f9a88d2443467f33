import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createAgent } from '../../src/agents/index.ts'
import { resolveExperiment, type LoadedExperiment } from '../../src/experiment/load.ts'
import { armAgentSpec, artifactsPath, executeRun } from '../../src/runs/execute.ts'
import { templateRoot } from '../../src/workspace/template.ts'
import { ESCAPE_FLOOR, ESCAPED, lowestFree } from '../helpers/free-disk.ts'
import { preparedDrift } from '../helpers/prepared-drift.ts'
import { NODE_TEST_COMMAND } from '../helpers/throwaway.ts'
import { harvestedTasks, type HarvestedFixture } from '../oracle/git-fix-task.ts'
import { RESULT_LINE, tagged } from './hostile-agent.ts'

// A git-fix task whose tests need a prepared node_modules (made by a prepare command that needs neither npm nor
// network), through the real path (executeRun) with hostile `command` agents: the prepared folder is bound read-only
// in the agent's workspace, and nothing inside the sandbox (root inside, as CI runs it) makes it writable.

const RECIPE = {
  prepare: 'mkdir -p node_modules/dep && cp dep.json node_modules/dep/package.json && echo "export const factor = 2" > node_modules/dep/index.js',
  inputs: ['dep.json'],
  mount: 'node_modules',
}
const double = (body: string) => `import { factor } from 'dep'\nexport const double = (n) => ${body}\n`
const FIXED = double('n * factor')
const doubleTest = (extra: string) =>
  `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { double } from '../src/double.js'\n` +
  `test('doubles one', () => assert.equal(double(1), 2))\n${extra}`

/** The agent's attacks on `node_modules` (its cwd is the workspace), each printing a tag only if it worked. */
const ATTACK = `
if mount -o remount,bind,rw node_modules 2>/dev/null; then echo "REMOUNTED"; fi
if mount --bind /tmp node_modules 2>/dev/null; then echo "COVERED"; fi
if umount -l node_modules 2>/dev/null; then echo "UNMOUNTED"; fi
echo 'export const factor = 3' > node_modules/dep/index.js 2>/dev/null && echo "WROTE index.js"
touch node_modules/planted 2>/dev/null && echo "WROTE planted"
rm -f node_modules/dep/package.json 2>/dev/null; [ -e node_modules/dep/package.json ] || echo "REMOVED package.json"
echo "FACTOR $(cat node_modules/dep/index.js)"
echo "DONE"
cat > src/double.js <<'EOF'
${FIXED}EOF`

/** Code under test that writes 1 GB into HOME when the fix's tests import it (once per test process). */
const FILLS_HOME = `${FIXED}import { closeSync, openSync, writeSync } from 'node:fs'
const fd = openSync(\`\${process.env.HOME}/big-\${process.pid}\`, 'w')
const chunk = Buffer.alloc(1024 * 1024, 120)
try { for (let i = 0; i < 1024; i++) writeSync(fd, chunk) } catch {}
closeSync(fd)
`

/**
 * Code under test that writes 1 GB into the oracle's JUnit report: the test file runs in a child of `node --test`,
 * whose own command line names the report (`--test-reporter-destination=`), so the path is one read of /proc away.
 */
const FILLS_REPORT = `${FIXED}import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
const flag = '--test-reporter-destination='
const args = readFileSync(\`/proc/\${process.ppid}/cmdline\`, 'utf8').split('\\0')
const report = args.findLast((a) => a.startsWith(flag))?.slice(flag.length)
if (report !== undefined) {
  const fd = openSync(report, 'a')
  const chunk = Buffer.alloc(1024 * 1024, 120)
  try { for (let i = 0; i < 1024; i++) writeSync(fd, chunk) } catch {}
  closeSync(fd)
}
`

const LOW = { processes: 256, memoryMb: 1024, diskMb: 64 }

let fixture: HarvestedFixture
let experiment: LoadedExperiment
let workspaceRoot: string

beforeAll(async () => {
  fixture = await harvestedTasks(
    [
      {
        subject: 'Initial doubling',
        files: {
          'package.json': '{"type":"module"}\n',
          'dep.json': '{"name":"dep","version":"1.0.0","type":"module","main":"index.js"}\n',
          'src/double.js': double('(n === 3 ? 7 : n * factor)'),
          'test/double.test.js': doubleTest(''),
        },
      },
      { subject: 'fix: three doubled to seven', files: { 'src/double.js': FIXED, 'test/double.test.js': doubleTest("test('doubles three', () => assert.equal(double(3), 6))\n") } },
    ],
    { testCommand: NODE_TEST_COMMAND, source: ['src/**/*.js'], tests: ['test/**/*.test.js'], dependencies: RECIPE },
  )
  const setDir = path.dirname(fixture.tasks[0]!.dir)
  for (const [name, body] of Object.entries({
    'attack.sh': ATTACK,
    'fill.sh': `cat > src/double.js <<'EOF'\n${FILLS_HOME}EOF`,
    'fill-report.sh': `cat > src/double.js <<'EOF'\n${FILLS_REPORT}EOF`,
  })) {
    await writeFile(path.join(setDir, name), `#!/usr/bin/env bash\n${body}\n${RESULT_LINE}\n`)
    await chmod(path.join(setDir, name), 0o755)
  }
  const root = path.dirname(setDir)
  workspaceRoot = await mkdtemp(path.join(os.tmpdir(), 'deps-walls-'))
  experiment = resolveExperiment(
    {
      default: {
        name: 'deps-walls',
        stage: 'example',
        agent: { kind: 'command', bin: './attack.sh', options: { allowZeroCost: true } },
        arms: {
          attack: {},
          fill: { agent: { kind: 'command', bin: './fill.sh', options: { allowZeroCost: true } } },
          'fill-report': { agent: { kind: 'command', bin: './fill-report.sh', options: { allowZeroCost: true } } },
        },
        control: 'attack',
        budgetUsd: 0.5,
        timeoutSeconds: 60,
        oracleTimeoutSeconds: 60,
        retries: { attempts: 1, backoffSeconds: 0 },
        output: path.join(root, 'out'),
        sandbox: { allow: [], limits: LOW },
      },
    },
    { file: path.join(setDir, 'experiment.ts'), root },
  )
}, 120_000)

afterAll(async () => {
  await fixture.cleanup()
  await rm(workspaceRoot, { recursive: true, force: true })
})

async function run(arm: 'attack' | 'fill' | 'fill-report') {
  const agent = createAgent(armAgentSpec(experiment, arm), { experimentDir: experiment.dir, root: experiment.root })
  const record = await executeRun({ experiment, task: fixture.tasks[0]!, arm, seed: 1, order: 0, specSha256: 'e'.repeat(64), agent, agentVersion: 'test', workspaceRoot })
  const transcript = await readFile(path.join(experiment.outDir, artifactsPath({ task: fixture.tasks[0]!.id, arm, seed: 1 }), 'transcript.jsonl'), 'utf8')
  return { record, transcript }
}

describe("a git-fix workspace's prepared node_modules, bound read-only", () => {
  test('cannot be remounted writable, covered by a bind or written by the agent; the folder stays as its manifest says and the run is recorded', async () => {
    expect(fixture.tasks[0]!.metadata.dependencies?.mount).toBe('node_modules')
    const { record, transcript } = await run('attack')
    expect(tagged(transcript, 'DONE')).toEqual([''])
    for (const tag of ['REMOUNTED', 'COVERED', 'UNMOUNTED', 'WROTE ', 'REMOVED ']) expect(tagged(transcript, tag), tag).toEqual([])
    expect(tagged(transcript, 'FACTOR ')).toEqual(['export const factor = 2'])
    expect(await preparedDrift(templateRoot())).toEqual([])
    expect(record).toMatchObject({ outcome: 'solved', changedFiles: ['src/double.js'], limit: null })
  }, 180_000)
})

describe("the oracle's HOME", () => {
  test("shares the run's disk limit: code under test writing 1 GB into HOME ends the run unsolved at its disk limit, the machine's disk unchanged", async () => {
    const { result, before, lowest } = await lowestFree(workspaceRoot, () => run('fill'))
    // The fix itself is right: only the limit makes the run unsolved.
    expect(result.record).toMatchObject({ outcome: 'unsolved', solved: false, changedFiles: ['src/double.js'], limit: 'disk' })
    // Other jobs share this disk: a gigabyte written there, even for a moment, would show; the run's own 64 MB never do.
    expect(before - lowest, ESCAPED).toBeLessThan(ESCAPE_FLOOR)
  }, 180_000)
})

describe("the oracle's JUnit report", () => {
  test("shares the run's disk limit: code under test writing 1 GB into the report ends the run unsolved, the machine's disk unchanged", async () => {
    const { result, before, lowest } = await lowestFree(workspaceRoot, () => run('fill-report'))
    expect(result.record).toMatchObject({ outcome: 'unsolved', solved: false, changedFiles: ['src/double.js'], limit: 'disk' })
    expect(before - lowest, ESCAPED).toBeLessThan(ESCAPE_FLOOR)
  }, 180_000)
})
