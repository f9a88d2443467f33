import { existsSync } from 'node:fs'
import { readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/agents/index.ts'
import { SpecError } from '../../src/errors.ts'
import { loadExperiments } from '../../src/experiment/load.ts'
import { executeRun } from '../../src/runs/execute.ts'
import { prepareLoadedExperiment } from '../../src/runs/prepare.ts'
import { GitFixMetadataSchema } from '../../src/tasks/metadata.ts'
import { dependencyContentMatches, taskDependencies } from '../../src/workspace/dependencies.ts'
import { templateRoot } from '../../src/workspace/template.ts'
import { createExperimentFixture, repoRoot, type ExperimentFixture } from '../helpers/experiment-fixture.ts'
import { writeKebabPrompts } from '../helpers/kebab-repository.ts'
import { buildRepo } from '../helpers/throwaway.ts'
import { pinnedVitestVersion, vitestProjectFiles } from '../helpers/vitest-lockfile.ts'

// The README's worked Vitest example, end to end through the real CLI: a throwaway repository tested by Vitest, with its own ESM vitest.config.js
// (this repository's own version, its package-lock.json holding only packages this repository's `npm ci` put in
// npm's cache), harvested with `--prepare 'npm ci --offline --ignore-scripts'` and a relative
// `node_modules/.bin/vitest` command, selected into task folders that hold no absolute path, validated (gold
// solves, noop does not), then run by the real Claude Code CLI against the scripted model server and judged by
// the oracle, every process in a sandbox without network; and a hostile `command` agent that tries to replace
// the mounted Vitest with one that passes everything.

// The repository's own ESM config (package.json says "type": "module"): the tests use its globals, so a run that did
// not load it reports no passing test. Vite would bundle it into node_modules/.vite-temp, which is read-only in the sandbox.
const VITEST_CONFIG = "import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ test: { globals: true } })\n"
const VITEST_COMMAND = 'node_modules/.bin/vitest run --reporter=junit --outputFile={junit} {tests}'
const cli = (args: readonly string[]) => execa(process.execPath, ['bin/task-outcome.js', ...args], { cwd: repoRoot, reject: false, all: true })

const code = (body: string) => `export function kebab(text) {\n  return ${body}\n}\n`
const V0 = "text.toLowerCase().replace(/ /g, '-')"
const V1 = "text.toLowerCase().replace(/[^a-z0-9]+/g, '-')"
const V2 = "text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')"
const tests = (cases: ReadonlyArray<readonly [string, string]>) =>
  `import { kebab } from '../src/kebab.js'\n\ndescribe('kebab', () => {\n` +
  cases
    .map(([input, output]) => `  it(${JSON.stringify(`turns ${input} into ${output}`)}, () => expect(kebab(${JSON.stringify(input)})).toBe(${JSON.stringify(output)}))\n`)
    .join('') +
  '})\n'
const BASE = [['Two Words', 'two-words']] as const
const FIRST = [...BASE, ['Hello, World', 'hello-world']] as const
const SECOND = [...FIRST, ['Hello!', 'hello']] as const

let fixture: ExperimentFixture
let repo: { dir: string; commits: string[] }
let harvestOutput: string
let selectOutput: string
let validateOutput: string
const { packageJson, packageLock } = vitestProjectFiles('kebab')

beforeAll(async () => {
  repo = await buildRepo(
    [
      {
        subject: 'Initial URL fragments',
        files: {
          'package.json': packageJson,
          'package-lock.json': packageLock,
          '.gitignore': 'node_modules/\n',
          'vitest.config.js': VITEST_CONFIG,
          'src/kebab.js': code(V0),
          'test/kebab.test.js': tests(BASE),
        },
      },
      { subject: 'fix: punctuation left in URL fragments', files: { 'src/kebab.js': code(V1), 'test/kebab.test.js': tests(FIRST) } },
      { subject: 'fix: a dash left at the end', files: { 'src/kebab.js': code(V2), 'test/kebab.test.js': tests(SECOND) } },
    ],
    'vitest-repo-',
  )
  fixture = await createExperimentFixture([], {
    stage: 'pilot',
    agent: { kind: 'claude-code', model: 'claude-sonnet-4-5', options: { scriptedModel: true } },
    arms: { baseline: {}, again: {} },
    control: 'baseline',
    seeds: 1,
    timeoutSeconds: 120,
    oracleTimeoutSeconds: 120,
    env: { set: { CLAUDE_CODE_MAX_RETRIES: '1' } },
    maxWorkers: 2,
  })
  const harvest = await cli([
    'harvest',
    '--repo',
    repo.dir,
    '--out',
    path.join(fixture.setDir, 'candidates.json'),
    '--prepare',
    'npm ci --offline --ignore-scripts',
    '--source',
    'src/**/*.js',
    '--tests',
    'test/**/*.test.js',
    '--test-command',
    VITEST_COMMAND,
  ])
  harvestOutput = harvest.all
  expect(harvest.exitCode, harvest.all).toBe(0)
  await writeKebabPrompts(fixture.setDir, repo.commits)
  const select = await cli(['select', '--candidates', path.join(fixture.setDir, 'candidates.json'), '--out', fixture.setDir, '--seed', '1', '--count', '2'])
  selectOutput = select.all
  expect(select.exitCode, select.all).toBe(0)
  const validate = await cli(['validate', fixture.setDir])
  validateOutput = validate.all
}, 600_000)

afterAll(async () => {
  await rm(repo.dir, { recursive: true, force: true })
  await rm(fixture.root, { recursive: true, force: true })
})

async function taskFolders(): Promise<string[]> {
  return (await readdir(fixture.setDir)).filter((name) => /^\d{3}-/.test(name)).sort()
}

async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name))
}

describe('a Vitest-based repository, harvested with the README example', () => {
  it('harvests both fixes, with their new tests as FAIL_TO_PASS, Vitest running from the prepared node_modules', () => {
    expect(harvestOutput).toMatch(new RegExp(`candidate ${repo.commits[1]!.slice(0, 10)}  1 FAIL_TO_PASS  1 PASS_TO_PASS  fix: punctuation left in URL fragments`))
    expect(harvestOutput).toMatch(new RegExp(`candidate ${repo.commits[2]!.slice(0, 10)}  1 FAIL_TO_PASS  2 PASS_TO_PASS  fix: a dash left at the end`))
  })

  it("selects two task folders whose metadata declares the dependencies with the lockfile's SHA-256, and no file holds an absolute path", async () => {
    expect(selectOutput).not.toMatch(/error/i)
    const folders = await taskFolders()
    expect(folders).toHaveLength(2)
    const lockSha = (await execa('sha256sum', [], { input: packageLock })).stdout.split(' ')[0]
    const forbidden = [fixture.root, repo.dir, os.tmpdir(), repoRoot, templateRoot(), os.homedir()].filter((dir) => dir !== '/')
    for (const folder of folders) {
      const metadata = GitFixMetadataSchema.parse(JSON.parse(await readFile(path.join(fixture.setDir, folder, 'metadata.json'), 'utf8')))
      expect(metadata.test_command).toBe(VITEST_COMMAND)
      expect(metadata.dependencies).toEqual({
        prepare: 'npm ci --offline --ignore-scripts',
        inputs: { 'package.json': expect.stringMatching(/^[0-9a-f]{64}$/), 'package-lock.json': lockSha },
        mount: 'node_modules',
      })
      expect(metadata.repo.startsWith('/')).toBe(false)
      for (const file of await filesBelow(path.join(fixture.setDir, folder))) {
        const text = await readFile(file, 'utf8')
        for (const dir of forbidden) expect(text.includes(dir), `${file} holds ${dir}`).toBe(false)
        expect(text, file).not.toMatch(/(^|["'\s=])\/(tmp|dev\/shm|root|home|usr|opt|work)\//m)
      }
    }
  })

  it('validates: the reference solution solves each task and an agent that changes nothing solves none', () => {
    expect(validateOutput).toMatch(/001-\S+\s+solved\s+unsolved/)
    expect(validateOutput).toMatch(/002-\S+\s+solved\s+unsolved/)
  })

  it('runs the real agent CLI against the scripted model and the oracle, sandboxed without network, recording the test runner and the model as scripted', async () => {
    const result = await fixture.vitest()
    expect(result.exitCode, result.all).toBe(0)
    const runs = await fixture.runs()
    expect(runs).toHaveLength(4)
    for (const run of runs) {
      expect(run, JSON.stringify(run)).toMatchObject({
        outcome: 'solved',
        versions: { model: 'scripted:claude-sonnet-4-5', testRunner: `vitest ${pinnedVitestVersion()}`, sandbox: expect.stringMatching(/^bubblewrap /) },
      })
      expect(run.oracle).toMatchObject({ failToPass: { passed: 1, total: 1 }, failing: [] })
      expect(run.changedFiles).toEqual(['src/kebab.js'])
    }
  }, 600_000)

  it('leaves the prepared node_modules byte-identical to its manifest after harvest, validate and the runs: no .vite cache or .vite-temp in it', async () => {
    const [experiment] = await loadExperiments({ file: fixture.experimentFile, root: fixture.root })
    const prepared = await prepareLoadedExperiment(experiment!)
    const dependencies = await taskDependencies(prepared.tasks[0]!, {})
    expect(dependencies).not.toBeNull()
    expect(await dependencyContentMatches(dependencies!)).toBe(true)
    expect((await readdir(dependencies!.folder)).filter((name) => name.startsWith('.vite'))).toEqual([])
  })

  it('a scripted-model pilot says so in its reports and is published only as a demo entry, never a claim', async () => {
    const claimsFile = path.join(fixture.root, 'site', 'claims.json')
    const refused = await cli(['publish', fixture.outDir, '--claims', claimsFile])
    expect(refused.exitCode).toBe(1)
    expect(refused.all.trim().split('\n')).toHaveLength(1)
    expect(refused.all).toMatch(/runs\.jsonl: its runs were made against the scripted model \(versions\.model scripted:…\).*pass --demo/)
    expect(existsSync(claimsFile)).toBe(false)

    const published = await cli(['publish', fixture.outDir, '--claims', claimsFile, '--demo'])
    expect(published.exitCode, published.all).toBe(0)
    const { claims } = JSON.parse(await readFile(claimsFile, 'utf8'))
    expect(claims).toHaveLength(1)
    expect(claims[0]).toMatchObject({ stage: 'pilot', demo: true, productClaim: false, label: { tag: 'DEMO' }, versions: { model: ['scripted:claude-sonnet-4-5'] } })
    const report = JSON.parse(await readFile(path.join(fixture.outDir, 'report.json'), 'utf8'))
    expect(report.versions.model).toEqual(['scripted:claude-sonnet-4-5'])
    const html = await readFile(path.join(fixture.outDir, 'report.html'), 'utf8')
    expect(html).toContain('scripted:claude-sonnet-4-5')
    expect(html).toMatch(/DEMO.{0,80}The model is scripted/s)
    // Nowhere is the real model named as the one that ran.
    expect(html.replaceAll('scripted:claude-sonnet-4-5', '')).not.toContain('claude-sonnet-4-5')
  }, 120_000)

  /** Two arms of one `command` agent over one task folder, one seed each, recorded in `out`. */
  async function writeCommandExperiment(bin: string, folder: string, out: string, extra: Record<string, unknown> = {}): Promise<void> {
    await fixture.writeExperiment({
      name: 'fixture',
      agent: { kind: 'command', bin },
      arms: { baseline: {}, again: {} },
      control: 'baseline',
      seeds: 1,
      ...extra,
      tasks: { include: [folder] },
      output: path.join(fixture.root, out),
    })
  }

  it('a command agent cannot replace the mounted Vitest: its writes are refused and the oracle judges with the real runner', async () => {
    const [folder] = await taskFolders()
    const metadata = GitFixMetadataSchema.parse(JSON.parse(await readFile(path.join(fixture.setDir, folder!, 'metadata.json'), 'utf8')))
    const cases = [...metadata.FAIL_TO_PASS, ...metadata.PASS_TO_PASS].map((id) => `<testcase classname="test/kebab.test.js" name="${id.replace(/^.*? > /, '')}"/>`).join('')
    // A fake Vitest that writes a JUnit report in which every listed test passes.
    const fake = `import { writeFileSync } from 'node:fs'\nconst out = process.argv.find((a) => a.startsWith('--outputFile='))?.slice(13)\nif (out) writeFileSync(out, '<testsuites><testsuite name="test/kebab.test.js">${cases}</testsuite></testsuites>')\n`
    await fixture.writeScript(
      'hostile.sh',
      [
        `fake=${JSON.stringify(fake)}`,
        'try() { if ( eval "$1" ) 2>/dev/null; then echo "WROTE: $1"; else echo "REFUSED: $1"; fi; }',
        'try \'printf "%s" "$fake" > node_modules/vitest/vitest.mjs\'',
        'try \'rm -f node_modules/.bin/vitest && printf "#!/usr/bin/env node\\n%s" "$fake" > node_modules/.bin/vitest && chmod +x node_modules/.bin/vitest\'',
        "try 'rm -rf node_modules'",
        "try 'mv node_modules node_modules.old && mkdir -p node_modules/.bin'",
        'echo \'{"status":"completed","costUsd":0.01}\'',
      ].join('\n'),
    )
    await writeCommandExperiment('./hostile.sh', folder!, 'hostile-out')
    const result = await fixture.vitest()
    const runs = (await readFile(path.join(fixture.root, 'hostile-out', 'runs.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(runs, result.all).toHaveLength(2)
    for (const run of runs) {
      expect(run).toMatchObject({ outcome: 'unsolved', changedFiles: [], versions: { testRunner: `vitest ${pinnedVitestVersion()}` } })
      expect(run.oracle).toMatchObject({ failToPass: { passed: 0, total: 1 } })
      const transcript = await readFile(path.join(fixture.root, 'hostile-out', String(run.transcript)), 'utf8')
      expect(transcript).not.toContain('WROTE')
      expect(transcript.match(/REFUSED/g)).toHaveLength(4)
    }
  }, 600_000)

  it('a FIFO the agent leaves is recorded unsolved once, never a harness failure, and the next invocation does not run it again', async () => {
    const [folder] = await taskFolders()
    await fixture.writeScript('fifo.sh', ['mkfifo src/pipe', 'echo \'{"status":"completed","costUsd":0.01}\''].join('\n'))
    await writeCommandExperiment('./fifo.sh', folder!, 'fifo-out')
    const first = await fixture.vitest()
    expect(first.exitCode, first.all).toBe(0)
    const runsFile = path.join(fixture.root, 'fifo-out', 'runs.jsonl')
    const runs = (await readFile(runsFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(runs).toHaveLength(2)
    for (const run of runs) expect(run).toMatchObject({ outcome: 'unsolved', changedFiles: ['src/pipe'], harnessRetries: [], harnessError: null })
    const recorded = await readFile(runsFile, 'utf8')
    const again = await fixture.vitest()
    expect(again.exitCode, again.all).toBe(0)
    expect(again.all).not.toMatch(/recorded \d{3}-/)
    expect(await readFile(runsFile, 'utf8')).toBe(recorded)
  }, 600_000)

  it('a resume whose task was judged with another test runner stops before the agent starts', async () => {
    const [experiment] = await loadExperiments({ file: fixture.experimentFile, root: fixture.root })
    const prepared = await prepareLoadedExperiment(experiment!)
    const task = prepared.tasks[0]!
    const agent = createAgent(experiment!.spec.agent, { experimentDir: experiment!.dir, root: experiment!.root })
    const run = executeRun({
      experiment: experiment!,
      task,
      arm: 'baseline',
      seed: 7,
      order: 0,
      specSha256: prepared.specSha256,
      agent,
      agentVersion: 'hostile',
      recordedVersions: { testRunner: 'vitest 3.2.4' },
    })
    await expect(run).rejects.toThrow(SpecError)
    await expect(run).rejects.toThrow(`${task.id} › baseline › seed 7: `)
    await expect(run).rejects.toThrow(`holds runs made with other versions (testRunner vitest 3.2.4 → vitest ${pinnedVitestVersion()})`)
  })

  it('without a sandbox, an agent that writes into the prepared folder through the link stops the experiment before the oracle', async () => {
    const [folder] = await taskFolders()
    await fixture.writeScript('tamper.sh', ['echo "process.exit(0)" >> node_modules/vitest/vitest.mjs', 'echo \'{"status":"completed","costUsd":0.01}\''].join('\n'))
    await writeCommandExperiment('./tamper.sh', folder!, 'tamper-out', { sandbox: 'none' })
    // Its own cache: the folder this agent writes to must not be the one later runs of the suite (or CI's second pass) meet.
    const result = await fixture.vitest([], { env: { TASK_OUTCOME_TEMPLATES: path.join(fixture.root, 'tamper-templates') } })
    expect(result.exitCode).not.toBe(0)
    expect(result.all).toMatch(/tampered/)
    expect(result.all).toMatch(/before the oracle, its prepared node_modules \S+ had vitest\/vitest\.mjs written since it was checked against its manifest/)
    expect(await readFile(path.join(fixture.root, 'tamper-out', 'runs.jsonl'), 'utf8').catch(() => '')).toBe('')
  }, 600_000)
})
