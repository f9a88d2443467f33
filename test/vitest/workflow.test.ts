import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { existsSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { parse } from 'yaml'
import { describe, expect, test } from 'vitest'
import { createExperimentFixture, repoRoot, simpleTasks, type ExperimentFixture } from '../helpers/experiment-fixture.ts'
import { waitFor } from '../helpers/wait-for.ts'

// docs/ci/github-actions.yml, simulated: its shard steps run as parallel local processes in one
// checkout (GitHub checks every job out at the same path, and blob reports name files by their
// absolute path), what each shard uploads is copied the way the artifact actions do it, and the
// merge job's steps run in a fresh checkout at that path. Only the GitHub actions themselves
// (checkout, setup-node, artifacts) are replaced; every `run:` script is the file's own.

interface Step {
  id?: string
  run?: string
  uses?: string
  with?: Record<string, string>
  env?: Record<string, string>
}
interface Workflow {
  env: Record<string, string | number>
  jobs: { shard: { strategy: { matrix: { shard: number[] } }; steps: Step[] }; merge: { steps: Step[] } }
}

const WORKFLOW = path.join(repoRoot, 'docs', 'ci', 'github-actions.yml')

function step(steps: Step[], id: string): string {
  const found = steps.find((candidate) => candidate.id === id)?.run
  if (found === undefined) throw new Error(`docs/ci/github-actions.yml: no step with id ${id}`)
  return found
}

/**
 * node_modules as an installed project has it: the repository's packages, task-outcome itself
 * (the repository, as \`npm install task-outcome\` would put it) and its bin in .bin/.
 */
async function linkNodeModules(into: string): Promise<void> {
  const source = path.join(repoRoot, 'node_modules')
  const target = path.join(into, 'node_modules')
  await mkdir(path.join(target, '.bin'), { recursive: true })
  for (const entry of await readdir(source)) if (entry !== '.bin') await symlink(path.join(source, entry), path.join(target, entry))
  for (const entry of await readdir(path.join(source, '.bin'))) await symlink(path.join(source, '.bin', entry), path.join(target, '.bin', entry))
  await symlink(repoRoot, path.join(target, 'task-outcome'))
  await symlink(path.join(repoRoot, 'bin', 'task-outcome.js'), path.join(target, '.bin', 'task-outcome'))
}

/** A project a user would have: the fixture's tasks and experiment, a vitest.config.ts naming it, node_modules. */
async function makeProject(fixture: ExperimentFixture): Promise<void> {
  await writeFile(
    path.join(fixture.root, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config'
import { experimentProject } from ${JSON.stringify(path.join(repoRoot, 'src', 'vitest', 'project.ts'))}
export default defineConfig(async () => ({ test: { projects: [await experimentProject('tasks/fixture/experiment.ts')] } }))
`,
  )
  await writeFile(path.join(fixture.root, 'package.json'), '{ "type": "module" }\n')
  await linkNodeModules(fixture.root)
}

/** A copy of the project, as a fresh checkout on another machine has it (no results). */
async function checkout(fixture: ExperimentFixture, into: string): Promise<string> {
  await mkdir(into, { recursive: true })
  for (const entry of ['tasks', 'vitest.config.ts', 'package.json']) await cp(path.join(fixture.root, entry), path.join(into, entry), { recursive: true })
  await linkNodeModules(into)
  return into
}

/** What actions/upload-artifact keeps of the step's `path` lines, copied under `into` by their paths. */
async function upload(machine: string, paths: string, env: Record<string, string>, into: string): Promise<void> {
  for (const pattern of paths
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')) {
    const relative = pattern.replace(/\$\{\{ env\.(\w+) \}\}/g, (_, name: string) => env[name]!).replace(/\$\{\{ matrix\.shard \}\}/g, env.SHARD!)
    const dir = path.dirname(relative.replace(/\/$/, ''))
    const base = path.basename(relative.replace(/\/$/, ''))
    const matcher = new RegExp(`^${base.replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`)
    const entries = existsSync(path.join(machine, dir)) ? await readdir(path.join(machine, dir)) : []
    for (const entry of entries.filter((name) => matcher.test(name))) {
      await cp(path.join(machine, dir, entry), path.join(into, dir, entry), { recursive: true })
    }
  }
}

const measured = (run: Record<string, unknown>) => ({
  task: run.task,
  arm: run.arm,
  seed: run.seed,
  order: run.order,
  outcome: run.outcome,
  costUsd: run.costUsd,
  specSha256: run.specSha256,
})
const byOrder = (a: { order: unknown }, b: { order: unknown }) => Number(a.order) - Number(b.order)
const readLines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('docs/ci/github-actions.yml', () => {
  test('its shards run in parallel, a lost shard resumes from its upload, and its merge job gives the records of one unsharded run, with the chain checked', {
    timeout: 600_000,
  }, async () => {
    const workflow = parse(await readFile(WORKFLOW, 'utf8')) as Workflow
    const shards = workflow.jobs.shard.strategy.matrix.shard
    expect(shards).toHaveLength(Number(workflow.env.SHARDS))
    const tasks = simpleTasks(shards.length, 0.5)

    const unsharded = await createExperimentFixture(tasks, { output: 'out' })
    await makeProject(unsharded)
    const plain = await execa('npx', ['vitest', 'run', '--project', 'fixture'], {
      cwd: unsharded.root,
      env: { CI: '1', NO_COLOR: '1', npm_config_offline: 'true' },
      reject: false,
      all: true,
    })
    expect(plain.exitCode, plain.all).toBe(0)
    const expected = (await readLines(path.join(unsharded.root, 'out', 'runs.jsonl'))).map(measured).sort(byOrder)
    expect(expected).toHaveLength(shards.length * 2 * 2)

    const project = await createExperimentFixture(tasks, { output: 'out' })
    await makeProject(project)
    const machines = await mkdtemp(path.join(os.tmpdir(), 'task-outcome-matrix-'))
    // npm never goes to the registry here: every command the workflow runs is installed.
    const env = { EXPERIMENT: 'fixture', OUT: 'out', SHARDS: String(workflow.env.SHARDS), CI: '1', NO_COLOR: '1', npm_config_offline: 'true' }
    const shardSteps = workflow.jobs.shard.steps
    const uploadPaths = shardSteps.find((candidate) => candidate.uses?.startsWith('actions/upload-artifact') === true)!.with!.path!

    const artifacts = path.join(machines, 'artifacts')
    const machine = path.join(machines, 'checkout')
    const runStep = (id: string, shardEnv: Record<string, string>) =>
      execa('bash', ['-eo', 'pipefail', '-c', step(shardSteps, id)], { cwd: machine, env: shardEnv, reject: false, all: true, detached: true })
    const shardEnvOf = (shard: number) => ({ ...env, SHARD: String(shard) })

    // Attempt 1: every shard at once; shard 1's machine is lost (SIGKILL) after its first recorded run.
    await checkout(project, machine)
    const firstShardFile = path.join(machine, 'out', `runs.shard-1-of-${workflow.env.SHARDS}.jsonl`)
    const results = await Promise.all(
      shards.map(async (shard) => {
        const resume = await runStep('resume', shardEnvOf(shard))
        expect(resume.exitCode, resume.all).toBe(0)
        const run = runStep('run-shard', shardEnvOf(shard))
        if (shard !== 1) return run
        await waitFor(() => existsSync(firstShardFile) && readFileSync(firstShardFile, 'utf8').split('\n').length > 1, 'a record in the first shard', 90_000)
        process.kill(-run.pid!, 'SIGKILL')
        await run
        return undefined
      }),
    )
    for (const result of results) if (result !== undefined) expect(result.exitCode, result.all).toBe(0)
    for (const shard of shards) await upload(machine, uploadPaths, shardEnvOf(shard), path.join(artifacts, `shard-${shard}-attempt-1`))
    const kept = readFileSync(firstShardFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '').length
    expect(kept).toBeGreaterThanOrEqual(1)
    expect(kept).toBeLessThan(4)

    // "Re-run failed jobs": shard 1 on a fresh machine, its earlier attempts downloaded into earlier/.
    await rm(machine, { recursive: true, force: true })
    await checkout(project, machine)
    await cp(path.join(artifacts, 'shard-1-attempt-1'), path.join(machine, 'earlier', 'shard-1-attempt-1'), { recursive: true })
    expect((await runStep('resume', shardEnvOf(1))).exitCode).toBe(0)
    const rerun = await runStep('run-shard', shardEnvOf(1))
    expect(rerun.exitCode, rerun.all).toBe(0)
    expect(rerun.all).toContain(`this invocation: ${4 - kept} run(s) recorded, ${kept} already recorded`)
    await upload(machine, uploadPaths, shardEnvOf(1), path.join(artifacts, 'shard-1-attempt-2'))

    // The merge job: a fresh checkout at the same path, every attempt's artifacts downloaded into shards/.
    await rm(machine, { recursive: true, force: true })
    const merger = await checkout(project, machine)
    await cp(artifacts, path.join(merger, 'shards'), { recursive: true })
    const mergeSteps = workflow.jobs.merge.steps
    for (const id of ['gather', 'merge', 'check']) {
      const result = await execa('bash', ['-eo', 'pipefail', '-c', step(mergeSteps, id)], { cwd: merger, env, reject: false, all: true })
      expect(result.exitCode, `${id}: ${result.all}`).toBe(0)
      if (id === 'check') expect(result.all).toMatch(/\*\*Verdict: (supported|not supported)\.\*\*/)
    }
    const merged = (await readLines(path.join(merger, 'out', 'runs.jsonl'))).map(measured).sort(byOrder)
    expect(merged).toEqual(expected)
    expect(existsSync(path.join(merger, 'out', 'report.json'))).toBe(true)
  })
})
