import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { createAgent } from '../../src/agents/index.ts'
import { resolveExperiment } from '../../src/experiment/load.ts'
import { buildRecord, runTrial, type RunContext, type RunStage } from '../../src/runs/execute.ts'
import type { GitFixTask } from '../../src/tasks/task.ts'
import { repositoryName } from '../../src/tasks/repository-name.ts'
import { readerGit } from '../../src/workspace/repository.ts'
import { copyTemplate, parentTemplate } from '../../src/workspace/template.ts'

/**
 * One whole run, as `executeRun` makes it (`runTrial`, then the record), of a
 * `command` agent that edits one file, on two generated repositories (5,000
 * and 50,000 files, each a package with one calculator module and its
 * `node --test` file among generated modules), sandboxed as experiments run.
 * Each stage is timed through `RunContext.onStage`: the run's scope
 * (workspace, dependencies, environment, sandbox, the task guard's first
 * look), arm setup and the snapshot, the agent, judging (the agent's change
 * read and written down while the oracle's overlay is mounted, the guard's
 * looks, the oracle: its preparation up to its test command's start, the
 * command's own run, its report read and checked), disposal, the record. The harness's share is the run's whole
 * time less the agent's and the test command's. The baseline, measured in
 * the same run on the same template: the oracle's copy as it was made before
 * it was an overlay (`copyTemplate` on the system temp folder, a disk here),
 * timed until it is on disk (`sync -f`: the disk traffic a copy costs the
 * machine), with the time until `copyTemplate` returns printed beside it.
 * Targets: oracle preparation under 20 ms and at least 100× faster than the
 * copy on disk; a harness share under 100 ms (5,000 files) and 250 ms (50,000).
 * The first run of a process checks the template in full (`git status`, the
 * guard's content check): it is a warm-up, not counted. The machine's load
 * is printed with each figure, since every figure moves with it.
 */

const SIZES = [5_000, 50_000] as const
const RUNS = 5
const COPIES = 3
const PREPARATION_TARGET_MS = 20
const RATIO_TARGET = 100
const SHARE_TARGET_MS: Record<number, number> = { 5000: 100, 50000: 250 }

const NODE_TEST_COMMAND = 'node --test --test-reporter=junit --test-reporter-destination={junit} {tests}'
const calc = (mul: string) => `export const add = (a, b) => a + b\nexport const mul = (a, b) => ${mul}\n`
const calcTest = (assertion: string) =>
  `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add, mul } from '../src/calc.js'\n` +
  `test('adds', () => assert.equal(add(2, 3), 5))\ntest('multiplies', () => ${assertion})\n`

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The `git fast-import` stream: `files` files in the initial commit, then the fix of `src/calc.js` with its test. */
function fastImportStream(files: number): string {
  const parts: string[] = []
  const inline = (file: string, content: string) => `M 100644 inline ${file}\ndata ${Buffer.byteLength(content)}\n${content}\n`
  const commit = (index: number, message: string, body: string) => {
    const when = Date.parse('2026-01-01T00:00:00Z') / 1000 + index * 3600
    parts.push(
      `commit refs/heads/main\nmark :${index + 1}\nauthor Bench <bench@example.com> ${when} +0000\ncommitter Bench <bench@example.com> ${when} +0000\n` +
        `data ${Buffer.byteLength(message)}\n${message}\n${index > 0 ? `from :${index}\n` : ''}${body}\n`,
    )
  }
  let initial = inline('package.json', '{"type":"module"}\n') + inline('src/calc.js', calc('a + b')) + inline('test/calc.test.js', calcTest('assert.ok(true)'))
  for (let i = 0; i < files - 3; i++) {
    const file = `lib/mod${String(Math.floor(i / 500)).padStart(3, '0')}/file${String(i).padStart(5, '0')}.js`
    initial += inline(file, `// ${file}\nexport const f${i} = (a, b) => a + b + ${i}\n`)
  }
  commit(0, 'Initial import', initial)
  commit(1, 'fix: multiplying adds instead', inline('src/calc.js', calc('a * b')) + inline('test/calc.test.js', calcTest('assert.equal(mul(2, 3), 6)')))
  return parts.join('')
}

/** The generated repository of `files` files (built once, kept in the temp folder for later runs). */
async function generatedRepository(files: number): Promise<string> {
  const dir = path.join(os.tmpdir(), `task-outcome-bench-run-repo-${files}`)
  if (
    await stat(path.join(dir, '.git')).then(
      () => true,
      () => false,
    )
  )
    return dir
  const building = `${dir}.building-${process.pid}`
  await rm(building, { recursive: true, force: true })
  await mkdir(building, { recursive: true })
  await readerGit(building).raw(['init', '-q', '-b', 'main'])
  await execa('git', ['fast-import', '--quiet'], { cwd: building, input: fastImportStream(files), env: { GIT_CONFIG_GLOBAL: '/dev/null' } })
  await rm(dir, { recursive: true, force: true })
  await execa('mv', [building, dir])
  return dir
}

/** The run's task over the repository: a task folder of its own with the fix's test in `oracle/`, and the agent's script. */
async function benchTask(repo: string, root: string): Promise<GitFixTask> {
  const git = readerGit(repo)
  const fix = (await git.raw(['rev-parse', 'main'])).trim()
  const base = (await git.raw(['rev-parse', 'main^'])).trim()
  const dir = path.join(root, 'tasks', 'bench', '001-calc')
  await mkdir(path.join(dir, 'oracle', 'test'), { recursive: true })
  await writeFile(path.join(dir, 'oracle', 'test', 'calc.test.js'), calcTest('assert.equal(mul(2, 3), 6)'))
  return {
    kind: 'git-fix',
    id: '001-calc',
    dir,
    prompt: 'Multiplying adds instead.',
    files: [],
    repo,
    repository: repositoryName(repo),
    oracleDir: path.join(dir, 'oracle'),
    goldPatch: null,
    metadata: {
      id: '001',
      slug: 'calc',
      kind: 'git-fix',
      repo,
      base,
      fix,
      gold_files: ['src/calc.js'],
      test_files: ['test/calc.test.js'],
      FAIL_TO_PASS: ['multiplies'],
      PASS_TO_PASS: ['adds'],
      test_command: NODE_TEST_COMMAND,
    },
  } satisfies GitFixTask
}

interface RunTimes {
  readonly stages: Partial<Record<RunStage | 'record', number>>
  readonly totalMs: number
}

/** What one size measured: medians of the run's stages, the copy's baseline. */
interface SizeResult {
  readonly files: number
  readonly preparationMs: number
  readonly copyMs: number
  readonly shareMs: number
}

async function measureSize(files: number): Promise<SizeResult> {
  const started = performance.now()
  const repo = await generatedRepository(files)
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-run-'))
  try {
    const task = await benchTask(repo, root)
    const setDir = path.dirname(task.dir)
    // The agent: one file edited (the fix), one result line.
    await writeFile(path.join(setDir, 'agent.sh'), `#!/bin/sh\ncat > src/calc.js <<'EOF'\n${calc('a * b')}EOF\necho '{"status":"completed","costUsd":0.01}'\n`)
    await chmod(path.join(setDir, 'agent.sh'), 0o755)
    const experiment = resolveExperiment(
      {
        default: {
          name: 'bench-run',
          stage: 'example',
          agent: { kind: 'command', bin: './agent.sh', options: { allowZeroCost: true } },
          arms: { baseline: {}, treatment: {} },
          control: 'baseline',
          budgetUsd: 0.5,
          timeoutSeconds: 60,
          oracleTimeoutSeconds: 60,
          retries: { attempts: 1, backoffSeconds: 0 },
          output: path.join(root, 'out'),
        },
      },
      { file: path.join(setDir, 'experiment.ts'), root },
    )
    // Kept from an earlier invocation when `git status` finds it pristine (exporting 50,000 files is a minute of
    // start-up); the runs' first, uncounted, checks it in full either way.
    const template = await parentTemplate(repo, task.metadata.base)
    console.log(`${files} files: repository and template ready in ${((performance.now() - started) / 1000).toFixed(1)} s (load ${load()})`)
    const agent = createAgent(experiment.spec.agent, { experimentDir: experiment.dir, root })
    const workspaceRoot = await mkdtemp(path.join(os.tmpdir(), 'bench-run-workspaces-'))
    const oneRun = async (seed: number): Promise<RunTimes> => {
      const stages: Partial<Record<RunStage | 'record', number>> = {}
      const context: RunContext = {
        experiment,
        task,
        arm: 'baseline',
        seed,
        order: seed,
        specSha256: 'b'.repeat(64),
        agent,
        agentVersion: 'bench',
        workspaceRoot,
        onStage: (stage, ms) => {
          stages[stage] = (stages[stage] ?? 0) + ms
        },
      }
      const runStarted = performance.now()
      const startedAt = new Date()
      const trial = await runTrial(context, path.join(root, 'artifacts', String(seed)))
      const recordStarted = performance.now()
      const record = buildRecord(context, trial, [], startedAt, new Date())
      stages.record = performance.now() - recordStarted
      if (!record.solved) throw new Error(`${files} files: the bench's run was not solved:\n${trial.judgement.stderr.slice(-2000)}`)
      return { stages, totalMs: performance.now() - runStarted }
    }
    // The first run of the process checks the template in full (git status, the guard's content check): not counted.
    // The runs start on a quiet disk (what an earlier invocation or the repository's export left to write, flushed).
    await execa('sync', ['-f', os.tmpdir()])
    await oneRun(0)
    const runs: RunTimes[] = []
    for (let seed = 1; seed <= RUNS; seed++) runs.push(await oneRun(seed))
    // The copy until it is on disk: what copyTemplate returned, then `sync -f` (its file system's writeback) timed with
    // it. Without the sync the figure swings tenfold with what the disk still holds to write (190 ms to 2.7 s for the
    // same 5,000 files at idle), and the copy's writeback slows whatever is measured after it; its removal is flushed
    // too, untimed, so the next size's runs start on a quiet disk.
    const copies: number[] = []
    const returned: number[] = []
    const flush = (dir: string) => execa('sync', ['-f', dir])
    for (let i = 0; i < COPIES; i++) {
      const dest = await mkdtemp(path.join(os.tmpdir(), 'bench-run-copy-'))
      const copyStarted = performance.now()
      await copyTemplate(template, dest)
      returned.push(performance.now() - copyStarted)
      await flush(dest)
      copies.push(performance.now() - copyStarted)
      await rm(dest, { recursive: true, force: true })
      await flush(os.tmpdir())
    }
    await rm(workspaceRoot, { recursive: true, force: true })
    const stage = (name: RunStage | 'record') => median(runs.map((run) => run.stages[name] ?? 0))
    const shares = runs.map((run) => run.totalMs - (run.stages.agent ?? 0) - (run.stages['test command'] ?? 0))
    const rows: Array<[string, number]> = [
      ['workspace (run scope: workspace, dependencies, environment, sandbox, guard)', stage('workspace')],
      ['setup (arm setup, snapshot)', stage('setup')],
      ['agent (the command agent in its sandbox)', stage('agent')],
      ['oracle preparation (its overlay awaited, changes, tests and canaries laid)', stage('oracle preparation')],
      ['test command (its own run, sandboxed)', stage('test command')],
      [
        'judging besides (changes, diff, scan beside the mount; guard; report read)',
        median(runs.map((run) => (run.stages.judging ?? 0) - (run.stages['oracle preparation'] ?? 0) - (run.stages['test command'] ?? 0))),
      ],
      ['dispose (workspace, sandbox)', stage('dispose')],
      ['record', stage('record')],
      ['whole run', median(runs.map((run) => run.totalMs))],
      ['harness share (whole run − agent − test command)', median(shares)],
      [`the oracle's copy, until copyTemplate returns (${os.tmpdir()})`, median(returned)],
      [`baseline: the oracle's copy on disk (copyTemplate, then sync -f, ${os.tmpdir()})`, median(copies)],
    ]
    console.log(`\n${files} files, ${RUNS} runs after one warm-up, medians (load ${load()}):`)
    for (const [label, ms] of rows) console.log(`  ${label.padEnd(82)} ${ms.toFixed(1).padStart(9)} ms`)
    return { files, preparationMs: stage('oracle preparation'), copyMs: median(copies), shareMs: median(shares) }
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

export default async function run(): Promise<void> {
  const results: SizeResult[] = []
  for (const files of SIZES) results.push(await measureSize(files))
  const met = (result: SizeResult) =>
    result.preparationMs < PREPARATION_TARGET_MS && result.copyMs / result.preparationMs >= RATIO_TARGET && result.shareMs < SHARE_TARGET_MS[result.files]!
  console.log(
    `\ntargets: oracle preparation under ${PREPARATION_TARGET_MS} ms and ${RATIO_TARGET}× faster than the copy on disk; harness share under ${SIZES.map((files) => `${SHARE_TARGET_MS[files]} ms (${files} files)`).join(', ')}: ` +
      `${results.map((result) => `${result.files} files ${met(result) ? 'met' : 'missed'}`).join(', ')} (load ${load()})`,
  )
  for (const result of results) {
    console.log(
      `run ${result.files} files: oracle preparation ${result.preparationMs.toFixed(1)} ms (${(result.copyMs / result.preparationMs).toFixed(0)}× faster than the copy on disk), harness share ${result.shareMs.toFixed(0)} ms`,
    )
  }
}
