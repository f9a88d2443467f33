import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeTemplate } from '../../src/workspace/template.ts'
import { repoRoot } from '../helpers/experiment-fixture.ts'
import { buildRepo, NODE_TEST_COMMAND } from '../helpers/throwaway.ts'

// `task-outcome harvest` and `task-outcome select` through the real CLI (bin/task-outcome.js) on a throwaway
// repository tested by the real `node --test`.
const cli = (args: readonly string[]) => execa(process.execPath, ['bin/task-outcome.js', ...args], { cwd: repoRoot, reject: false })
const HEAD = "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { half } from '../src/half.js'\n"

let scratch: string
let repo: { dir: string; commits: string[] }

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'cli-harvest-'))
  repo = await buildRepo([
    {
      subject: 'init',
      files: {
        'package.json': '{"type":"module"}\n',
        'src/half.js': 'export const half = (n) => n / 3\n',
        'test/half.test.js': `${HEAD}test('halves zero', () => assert.equal(half(0), 0))\n`,
      },
    },
    {
      subject: 'fix: half divides by three',
      files: {
        'src/half.js': 'export const half = (n) => n / 2\n',
        'test/half.test.js': `${HEAD}test('halves zero', () => assert.equal(half(0), 0))\ntest('halves four', () => assert.equal(half(4), 2))\n`,
      },
    },
  ])
})
afterAll(async () => {
  await removeTemplate(repo.dir, repo.commits[0]!)
  await rm(repo.dir, { recursive: true, force: true })
  await rm(scratch, { recursive: true, force: true })
})

describe('task-outcome harvest and select', () => {
  it('explain themselves in --help', async () => {
    const harvest = await cli(['harvest', '--help'])
    expect(harvest.exitCode).toBe(0)
    expect(harvest.stdout).toMatch(/--test-command <cmd>[\s\S]*\{junit\}/)
    const select = await cli(['select', '--help'])
    expect(select.stdout).toMatch(/--seed <n>[\s\S]*\(default: 20261014\)/)
    expect(select.stdout).toContain('--plan')
  })

  it('harvest writes the candidates file, lists what it found on stdout and shows progress on stderr', async () => {
    const out = path.join(scratch, 'set', 'candidates.json')
    const result = await cli(['harvest', '--repo', repo.dir, '--out', out, '--source', 'src/**/*.js', '--tests', 'test/**/*.test.js', '--test-command', NODE_TEST_COMMAND])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`^candidate ${repo.commits[1]!.slice(0, 10)}  1 FAIL_TO_PASS  1 PASS_TO_PASS  fix: half divides by three$`, 'm'))
    expect(result.stderr).toMatch(/^scanned 2 commit\(s\): 1 subject\(s\) match/m)
    expect(result.stderr).toMatch(/^\[1\/1\] [0-9a-f]{10} fix: half divides by three → 1 FAIL_TO_PASS, 1 PASS_TO_PASS/m)
    expect(JSON.parse(await readFile(out, 'utf8')).candidates[0].FAIL_TO_PASS).toEqual(['halves four'])
  })

  it('harvest exits 1 and says what to check when nothing is found', async () => {
    const result = await cli(['harvest', '--repo', repo.dir, '--out', path.join(scratch, 'none.json'), '--subject', '^nothing', '--test-command', NODE_TEST_COMMAND])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('no candidate found: see the reasons above and the harvest logs; check --subject, --since, --source, --tests and --prepare')
  })

  it('harvest refuses a test command without {junit} and a bad option value, naming them', async () => {
    const noJunit = await cli(['harvest', '--repo', repo.dir, '--out', path.join(scratch, 'x.json'), '--test-command', 'node --test {tests}'])
    expect(noJunit.exitCode).toBe(1)
    expect(noJunit.stderr).toMatch(/--test-command: the test command must contain \{junit\}/)
    const badJobs = await cli(['harvest', '--repo', repo.dir, '--out', path.join(scratch, 'x.json'), '--test-command', NODE_TEST_COMMAND, '--jobs', 'many'])
    expect(badJobs.exitCode).not.toBe(0)
    expect(badJobs.stderr).toMatch(/--jobs must be a whole number of at least 1, got "many"/)
  })

  it('select --plan shows the walk order and which candidates still need a prompt; select then writes the task set', async () => {
    const set = path.join(scratch, 'set')
    const plan = await cli(['select', '--candidates', path.join(set, 'candidates.json'), '--out', set, '--plan'])
    expect(plan.exitCode).toBe(0)
    expect(plan.stdout).toMatch(/1\. [0-9a-f]{12} {2}NO PROMPT\s+fix: half divides by three/)

    await mkdir(path.join(set, 'prompts'))
    await writeFile(path.join(set, 'prompts', `${repo.commits[1]!.slice(0, 7)}.md`), 'Halving 4 gives 1.33 instead of 2.\n')
    const select = await cli(['select', '--candidates', path.join(set, 'candidates.json'), '--out', set, '--count', '1'])
    expect(select.exitCode).toBe(0)
    expect(select.stdout.trim()).toBe('001-half-divides-by-three')
    expect(select.stderr).toMatch(/same oracle twice: task 1/)
    expect(await readFile(path.join(set, '001-half-divides-by-three', 'task.md'), 'utf8')).toBe('Halving 4 gives 1.33 instead of 2.\n')

    const validate = await cli(['validate', set])
    expect(validate.stdout).toMatch(/001-half-divides-by-three\s+solved\s+unsolved\s+yes/)
    expect(validate.exitCode).toBe(0)
  })
})
