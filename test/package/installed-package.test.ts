import { execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { beforeAll, describe, expect, test } from 'vitest'
import { AGENT_PACKAGES } from '../../src/agents/packages.ts'
import { repoRoot, writeFolderTasks } from '../helpers/experiment-fixture.ts'
import { firstCommands, shippedReadme } from '../helpers/readmes.ts'

// task-outcome as a user gets it: `npm pack` (which builds dist/), the tarball installed into a fresh
// CommonJS project (no "type" field) from npm's cache, no optional peer installed, and Vitest configs of
// every module kind importing the package by name. The experiments are real: the `command` agent, two
// folder tasks, two arms, the oracle, runs.jsonl and the verdict.

let project: string
let treeBefore: WorkingTree
let treeAfter: WorkingTree

/** What `npm pack` must leave as it found it: git's view of the working tree and the README's bytes. */
interface WorkingTree {
  readonly status: string
  readonly readme: string
}

async function workingTree(): Promise<WorkingTree> {
  const status = await execa('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repoRoot })
  return { status: status.stdout, readme: await readFile(path.join(repoRoot, 'README.md'), 'utf8') }
}

/** Two folder tasks: solved when answer.txt holds 42. */
const TASKS = ['001-first', '002-second'].map((id) => ({
  id,
  prompt: 'The answer in answer.txt is wrong: it should be 42.\n',
  starting: { 'answer.txt': '0\n' },
  verify: '[ "$(cat answer.txt)" = 42 ]',
  solve: 'echo 42 > answer.txt',
}))

/** The `command` agent: the `fixer` arm writes the answer and costs less, `baseline` changes nothing. */
const AGENT = `#!/usr/bin/env node
import { writeFileSync } from 'node:fs'
for await (const _chunk of process.stdin);
const fixer = process.env.TASK_OUTCOME_ARM === 'fixer'
if (fixer) writeFileSync('answer.txt', '42\\n')
console.log(JSON.stringify({ status: 'completed', costUsd: fixer ? 0.01 : 0.02, turns: 1 }))
`

function experimentSource(name: string, agent: string): string {
  return `import { defineExperiment } from 'task-outcome'

export default defineExperiment({
  name: '${name}',
  stage: 'example',
  tasks: '.',
  agent: ${agent},
  arms: { baseline: {}, fixer: {} },
  control: 'baseline',
  seeds: 1,
  budgetUsd: 0.1,
  timeoutSeconds: 30,
  oracleTimeoutSeconds: 30,
  retries: { attempts: 1, backoffSeconds: 0 },
  maxWorkers: 1,
})
`
}

/** The configs, one per module kind: each names its own experiment file (and so its own output folder). */
const CONFIGS: Record<string, (experiment: string) => string> = {
  'vitest.config.mjs': (experiment) => `import { defineConfig } from 'vitest/config'
import { experimentProject, TaskOutcomeReporter } from 'task-outcome'

export default defineConfig(async () => ({
  test: { reporters: ['default', new TaskOutcomeReporter()], projects: [await experimentProject('${experiment}')] },
}))
`,
  'vitest.config.cjs': (experiment) => `const { defineConfig } = require('vitest/config')
const { experimentProject, TaskOutcomeReporter } = require('task-outcome')

module.exports = defineConfig(async () => ({
  test: { reporters: ['default', new TaskOutcomeReporter()], projects: [await experimentProject('${experiment}')] },
}))
`,
  'vitest.config.ts': (experiment) => `import { defineConfig } from 'vitest/config'
import { experimentProject } from 'task-outcome'
import TaskOutcomeReporter from 'task-outcome/reporter'

export default defineConfig(async () => ({
  test: { reporters: ['default', new TaskOutcomeReporter()], projects: [await experimentProject('${experiment}')] },
}))
`,
}

async function megabytes(dir: string): Promise<number> {
  const output = execFileSync('du', ['-sk', dir], { encoding: 'utf8' })
  return Number(output.split('\t')[0]) / 1024
}

/** Installs the tarball from npm's cache; only metadata the cache lacks is asked of the registry. */
async function installTarball(dir: string, tarball: string, vitestVersion: string): Promise<string> {
  const common = ['install', '--no-audit', '--no-fund', tarball, `vitest@${vitestVersion}`]
  const offline = await execa('npm', ['--offline', ...common], { cwd: dir, reject: false, all: true })
  if (offline.exitCode === 0) return 'offline (tarball and npm cache only)'
  const preferOffline = await execa('npm', ['--prefer-offline', ...common], { cwd: dir, reject: false, all: true })
  if (preferOffline.exitCode !== 0) throw new Error(`npm install of ${tarball} failed:\n${offline.all}\n${preferOffline.all}`)
  return 'prefer-offline (npm cache first; metadata missing from it came from the registry)'
}

function vitest(config: string) {
  return execa(path.join(project, 'node_modules', '.bin', 'vitest'), ['run', '--config', config], {
    cwd: project,
    env: { NO_COLOR: '1', CI: '1' },
    reject: false,
    all: true,
  })
}

beforeAll(async () => {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-package-'))
  treeBefore = await workingTree()
  const packed = await execa('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: repoRoot, all: true })
  treeAfter = await workingTree()
  const tarball = path.join(scratch, packed.stdout.trim().split('\n').at(-1)!)
  project = path.join(scratch, 'project')
  await mkdir(project)
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true }, null, 2))
  // The user's Vitest is the one this suite runs on (CI runs it on Vitest 4.1 and on 5).
  const vitestVersion = (JSON.parse(await readFile(path.join(repoRoot, 'node_modules', 'vitest', 'package.json'), 'utf8')) as { version: string }).version
  const how = await installTarball(project, tarball, vitestVersion)
  // Measured, not asserted on a timer: the size of a user's node_modules with task-outcome and Vitest, no optional peer.
  console.log(
    `task-outcome with vitest ${vitestVersion} installed ${how}, Node ${process.version}: ` +
      `node_modules is ${(await megabytes(path.join(project, 'node_modules'))).toFixed(1)} MB`,
  )

  const setDir = path.join(project, 'tasks', 'pilot')
  await writeFolderTasks(setDir, TASKS)
  await writeFile(path.join(setDir, 'agent.mjs'), AGENT)
  await chmod(path.join(setDir, 'agent.mjs'), 0o755)
  for (const config of Object.keys(CONFIGS)) {
    const name = `pilot-${path.extname(config).slice(1)}`
    await writeFile(path.join(setDir, `${name}.ts`), experimentSource(name, `{ kind: 'command', bin: './agent.mjs' }`))
    await writeFile(path.join(project, config), CONFIGS[config]!(`tasks/pilot/${name}.ts`))
  }
  await writeFile(path.join(setDir, 'claude.ts'), experimentSource('claude', `{ kind: 'claude-code', model: 'claude-sonnet-4-5' }`))
  await writeFile(path.join(project, 'vitest.claude.mjs'), CONFIGS['vitest.config.mjs']!('tasks/pilot/claude.ts'))
}, 600_000)

describe('the packed package, installed into a fresh CommonJS project', () => {
  test('holds the built code and the example tasks init copies, none of the repository’s tests, samples or other tasks', async () => {
    const installed = path.join(project, 'node_modules', 'task-outcome')
    expect((await readdir(installed)).sort()).toEqual(expect.arrayContaining(['bin', 'dist', 'docs', 'package.json', 'README.md', 'tasks']))
    for (const absent of ['src', 'test', 'samples', 'bench']) expect(await readdir(installed)).not.toContain(absent)
    expect((await readdir(path.join(installed, 'tasks'))).sort()).toEqual(['demo', 'examples'])
    expect(await readdir(path.join(installed, 'tasks', 'demo'))).toEqual(['context-tool'])
    expect(await readdir(path.join(installed, 'tasks', 'examples'))).not.toContain('experiment.ts')
    expect(await readdir(path.join(installed, 'dist', 'src', 'agents', 'cursor'))).toContain('runner.mjs')
  })

  test("ships the package's README (a user's commands first) and leaves the repository's in the working tree", async () => {
    const installed = await readFile(path.join(project, 'node_modules', 'task-outcome', 'README.md'), 'utf8')
    expect(installed).toBe(shippedReadme())
    expect(firstCommands(installed)[1]).toBe('npx task-outcome init')
    expect(treeAfter).toEqual(treeBefore)
    expect(firstCommands(treeAfter.readme)[1]).toBe('npm test')
  })

  test('installs no agent CLI: they are optional peers', async () => {
    const modules = await readdir(path.join(project, 'node_modules'))
    for (const { name } of Object.values(AGENT_PACKAGES)) expect(modules).not.toContain(name.split('/')[0])
  })

  test.each(Object.keys(CONFIGS))('%s runs a two-arm experiment over two folder tasks: runs.jsonl and the verdict', async (config) => {
    const name = `pilot-${path.extname(config).slice(1)}`
    const run = await vitest(config)
    expect(run.exitCode, run.all).toBe(0)
    const outDir = path.join(project, 'bench', 'task_outcome', name)
    const records = (await readFile(path.join(outDir, 'runs.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(records.map((record) => `${record.task} ${record.arm} ${record.outcome}`).sort()).toEqual([
      '001-first baseline unsolved',
      '001-first fixer solved',
      '002-second baseline unsolved',
      '002-second fixer solved',
    ])
    const report = JSON.parse(await readFile(path.join(outDir, 'report.json'), 'utf8')) as { decision: { verdict: string } }
    // Two tasks cannot reach p < 0.05 with an exact test, so the rule says "not supported" whatever the effect.
    expect(report.decision.verdict).toBe('not supported')
    expect(run.all).toContain('verdict: not supported')
  })

  test('the task-outcome command runs the built CLI', async () => {
    const help = await execa(path.join(project, 'node_modules', '.bin', 'task-outcome'), ['--help'], { cwd: project, reject: false, all: true })
    expect(help.exitCode, help.all).toBe(0)
    expect(help.all).toMatch(/validate/)
  })

  test('init writes an experiment and a config that Vitest loads from the installed package', async () => {
    const fresh = path.join(project, 'fresh')
    await mkdir(fresh)
    await writeFile(path.join(fresh, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0', private: true }))
    const init = await execa(path.join(project, 'node_modules', '.bin', 'task-outcome'), ['init'], { cwd: fresh, reject: false, all: true })
    expect(init.exitCode, init.all).toBe(0)
    expect(init.stdout).toContain('the templates run Claude Code: npm install --save-dev @anthropic-ai/claude-code@')
    const run = await execa(path.join(project, 'node_modules', '.bin', 'vitest'), ['run', '--project', 'pilot-smoke'], {
      cwd: fresh,
      env: { NO_COLOR: '1', CI: '1' },
      reject: false,
      all: true,
    })
    // The config and the experiment load; the template's agent is not installed here, so it stops before any run.
    expect(run.exitCode).toBe(1)
    expect(run.all).toContain('agent "claude-code" needs @anthropic-ai/claude-code, which is not installed')
  })

  test('an experiment whose agent CLI is not installed stops before any run, naming the package@version to install', async () => {
    const run = await vitest('vitest.claude.mjs')
    expect(run.exitCode).toBe(1)
    const { name, version } = AGENT_PACKAGES['claude-code']
    expect(run.all).toContain(`agent "claude-code" needs ${name}, which is not installed: npm install --save-dev ${name}@${version}`)
    await expect(readdir(path.join(project, 'bench', 'task_outcome', 'claude'))).rejects.toThrow(/ENOENT/)
  })
})
