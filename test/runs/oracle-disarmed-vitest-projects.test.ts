import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/agents/index.ts'
import { resolveExperiment, type LoadedExperiment } from '../../src/experiment/load.ts'
import { executeRun } from '../../src/runs/execute.ts'
import { harvestedVitestTasks, type HarvestedFixture } from '../oracle/git-fix-task.ts'

// A Vitest repository whose own ESM vitest.config.js declares its tests as inline test.projects without
// `extends: true`: such a project inherits nothing of the root config, so the harness gives each one its setup file
// (the locks on expect, chai and the matchers) and its private cache itself. Through the real path (executeRun,
// sandbox), a hostile `command` agent that fixes nothing and calls expect.extend({ toBe }) from the source file the
// tests import is stopped by that lock and recorded oracle-disarmed, as is a chai plugin that overwrites the matcher
// the tests use; one that registers an equality tester passing everything (expect.addEqualityTesters, which the
// locks leave to the test files) makes a must-fail canary of that matcher pass. Gold solves the task, noop does not.
const slug = (body: string) => `export function slugify(text) {\n  return ${body}\n}\n`
const BUGGY = "text.toLowerCase().replace(/ /g, '-')"
const FIXED = "text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')"
const slugTests = (extra: string) =>
  `import { slugify } from '../src/slug.js'\n\ndescribe('slugify', () => {\n  it.each([['Hello', 'hello'], ['Two Words', 'two-words']${extra}])('turns %s into %s', (input, expected) => {\n    expect({ slug: slugify(input) }).toMatchObject({ slug: expected })\n  })\n})\n`
const CONFIG = "export default { test: { projects: [{ test: { name: 'unit', include: ['test/**/*.test.js'] } }] } }\n"
const HOSTILE: Record<string, string> = {
  extend: "globalThis.expect.extend({ toMatchObject: () => ({ pass: true, message: () => '' }) })\n",
  chai: "globalThis.chai.use((chai, utils) => utils.overwriteMethod(chai.Assertion.prototype, 'toMatchObject', () => function () {}))\n",
  testers: 'globalThis.expect.addEqualityTesters([() => true])\n',
}

describe('a Vitest repository whose test.projects do not extend the root config, through the real path', () => {
  let fixture: HarvestedFixture
  let experiment: LoadedExperiment
  let workspaceRoot: string

  beforeAll(async () => {
    fixture = await harvestedVitestTasks(
      { 'vitest.config.js': CONFIG, 'src/slug.js': slug(BUGGY), 'test/slug.test.js': slugTests('') },
      { subject: 'fix: punctuation left in slugs', files: { 'src/slug.js': slug(FIXED), 'test/slug.test.js': slugTests(", ['Hello, World!', 'hello-world']") } },
    )
    const setDir = path.dirname(fixture.tasks[0]!.dir)
    for (const [name, line] of Object.entries(HOSTILE)) {
      await writeFile(path.join(setDir, `${name}.sh`), `#!/usr/bin/env bash\ncat > src/slug.js <<'EOF'\n${slug(BUGGY)}${line}EOF\necho '{"status":"completed","costUsd":0.01}'\n`)
      await chmod(path.join(setDir, `${name}.sh`), 0o755)
    }
    workspaceRoot = await mkdtemp(path.join(os.tmpdir(), 'disarmed-projects-workspaces-'))
    experiment = resolveExperiment(
      {
        default: {
          name: 'disarmed-vitest-projects',
          stage: 'example',
          agent: { kind: 'command', bin: './extend.sh', options: { allowZeroCost: true } },
          arms: { extend: {}, chai: {}, testers: {}, gold: { agent: { kind: 'gold' } }, noop: { agent: { kind: 'noop' } } },
          control: 'noop',
          budgetUsd: 0.5,
          timeoutSeconds: 60,
          oracleTimeoutSeconds: 90,
          retries: { attempts: 1, backoffSeconds: 0 },
          output: path.join(path.dirname(setDir), 'out'),
        },
      },
      { file: path.join(setDir, 'experiment.ts'), root: path.dirname(setDir) },
    )
  }, 300_000)

  afterAll(async () => {
    await fixture?.cleanup()
    if (workspaceRoot !== undefined) await rm(workspaceRoot, { recursive: true, force: true })
  })

  async function record(arm: string) {
    const spec = arm === 'gold' || arm === 'noop' ? { kind: arm, args: [], options: {} } : { ...experiment.spec.agent, bin: `./${arm}.sh` }
    const agent = createAgent(spec as typeof experiment.spec.agent, { experimentDir: experiment.dir, root: experiment.root })
    return executeRun({ experiment, task: fixture.tasks[0]!, arm, seed: 1, order: 0, specSha256: 'a'.repeat(64), agent, agentVersion: 'test', workspaceRoot })
  }

  it("harvests the project's tests (the harness config kept the task's projects)", () => {
    expect(fixture.tasks[0]!.metadata.FAIL_TO_PASS).toEqual(['test/slug.test.js::slugify > turns Hello, World! into hello-world'])
  })

  it("records expect.extend from source unsolved with oracle-disarmed by the harness's lock in the project; gold solved, noop not", async () => {
    const extend = await record('extend')
    expect(extend).toMatchObject({ outcome: 'unsolved', solved: false, changedFiles: ['src/slug.js'] })
    // The parser's flag first (src/oracle/disarming/), then the oracle's, which alone made the run unsolved.
    expect(extend.integrityFlags).toEqual([
      expect.stringMatching(/^extends expect: /),
      expect.stringMatching(/^oracle-disarmed: code in the test process tried to change a frozen assertion export \(Cannot assign to read only property 'toMatchObject'/),
    ])
    expect(await record('gold')).toMatchObject({ outcome: 'solved', integrityFlags: [] })
    expect(await record('noop')).toMatchObject({ outcome: 'unsolved', integrityFlags: [] })
  }, 300_000)

  it("records chai.use overwriting a matcher on chai's Assertion unsolved with oracle-disarmed by the same lock", async () => {
    const chai = await record('chai')
    expect(chai).toMatchObject({ outcome: 'unsolved', solved: false })
    // The parser's flag first (src/oracle/disarming/), then the oracle's, which alone made the run unsolved.
    expect(chai.integrityFlags).toEqual([
      expect.stringMatching(/^extends expect: /),
      expect.stringMatching(
        /^oracle-disarmed: code in the test process tried to change a frozen assertion export \(Cannot assign to read only property 'toMatchObject' of object '#<_Assertion>'/,
      ),
    ])
  }, 120_000)

  it('records expect.addEqualityTesters([() => true]) from source unsolved with oracle-disarmed: a must-fail canary of the matcher the tests use passed', async () => {
    const testers = await record('testers')
    expect(testers).toMatchObject({ outcome: 'unsolved', solved: false })
    // The parser's flag first (src/oracle/disarming/), then the oracle's, which alone made the run unsolved.
    expect(testers.integrityFlags).toEqual([
      expect.stringMatching(/^extends expect: /),
      expect.stringMatching(
        /^oracle-disarmed: a canary that must fail passed: test\/slug\.test\.js: "[^"]+" \((toMatchObject|toEqual|toStrictEqual|toContainEqual|toHaveProperty)\)/,
      ),
    ])
  }, 120_000)
})
