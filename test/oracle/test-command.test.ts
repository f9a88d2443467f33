import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SpecError } from '../../src/errors.ts'
import { checkTestCommand, fillTestCommand, runTestCommand, testCommandEnv } from '../../src/oracle/test-command.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'test-command-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Whether a process still runs (a zombie waiting for its new parent to reap it does not). */
async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)
  if (stat !== null) return !/^\d+ \(.*\) Z /.test(stat)
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('the test command', () => {
  it('fills {tests} and {junit}, quoting what the shell would split', () => {
    expect(fillTestCommand('run --out={junit} {tests}', ['tests/test_a.py', "tests/it's b.py"], '/tmp/x y/r.xml')).toBe(
      "run --out='/tmp/x y/r.xml' tests/test_a.py 'tests/it'\\''s b.py'",
    )
  })

  it('must name where the JUnit report goes', () => {
    expect(() => checkTestCommand('pytest {tests}', '--test-command')).toThrow(SpecError)
    expect(() => checkTestCommand('pytest {tests}', '--test-command')).toThrow(/must contain \{junit\}/)
  })

  it("gets a clean environment: none of the harness's own variables, a HOME of its own", () => {
    const env = testCommandEnv('/scratch/home', { PATH: '/bin', VITEST: 'true', VITEST_WORKER_ID: '3', NODE_OPTIONS: '--inspect', ANTHROPIC_API_KEY: 'k', HOME: '/root' })
    expect(env).toMatchObject({ PATH: '/bin', HOME: '/scratch/home', CI: '1', TZ: 'UTC', PYENV_ROOT: '/root/.pyenv' })
    expect(Object.keys(env)).not.toEqual(expect.arrayContaining(['VITEST']))
    for (const name of ['VITEST', 'VITEST_WORKER_ID', 'NODE_OPTIONS', 'ANTHROPIC_API_KEY']) expect(env[name]).toBeUndefined()
  })

  it('reports "no results" with the reason when the command writes no report', async () => {
    const run = await runTestCommand({
      command: 'echo boom >&2; exit 3 # {junit}',
      cwd: dir,
      testFiles: [],
      junitFile: path.join(dir, 'r.xml'),
      timeoutMs: 10_000,
      home: path.join(dir, 'home'),
    })
    expect(run.results).toBeNull()
    expect(run.noResults).toBe('the test command exited 3 without writing a JUnit report')
    expect(run.stderr).toBe('boom')
  })

  it("kills the whole process group at the timeout, so a runner's workers do not outlive it", async () => {
    const pidFile = path.join(dir, 'pid')
    const run = await runTestCommand({
      command: `sleep 60 & echo $! > ${pidFile}; wait # {junit}`,
      cwd: dir,
      testFiles: [],
      junitFile: path.join(dir, 'r2.xml'),
      timeoutMs: 500,
      home: path.join(dir, 'home'),
    })
    expect(run.timedOut).toBe(true)
    expect(run.noResults).toMatch(/^the test command timed out after 500 ms/)
    const pid = Number(await readFile(pidFile, 'utf8'))
    await expect.poll(() => isRunning(pid), { timeout: 2_000 }).toBe(false)
  })

  it('reads a report without test cases, or one that is not XML, as no results', async () => {
    const empty = await runTestCommand({
      command: "echo '<testsuites/>' > {junit}",
      cwd: dir,
      testFiles: [],
      junitFile: path.join(dir, 'r3.xml'),
      timeoutMs: 10_000,
      home: path.join(dir, 'home'),
    })
    expect(empty.noResults).toBe('the test command exited 0 and its JUnit report lists no test case')
    const garbage = await runTestCommand({
      command: "echo '<testsuites><oops>' > {junit}",
      cwd: dir,
      testFiles: [],
      junitFile: path.join(dir, 'r4.xml'),
      timeoutMs: 10_000,
      home: path.join(dir, 'home'),
    })
    expect(garbage.noResults).toMatch(/its JUnit report cannot be read: the JUnit report is not well-formed XML/)
  })

  it('in a sandbox, binds the report as a file of its own: the tests cannot rename a forged report over it nor unlink it', async () => {
    const forge = [
      `echo '<testsuites><testcase name="forged"/></testsuites>' > /tmp/forged.xml`,
      'mv -f /tmp/forged.xml {junit} 2>/dev/null && echo RENAMED',
      'rm -f {junit} 2>/dev/null && echo REMOVED',
      'ls "$(dirname {junit})" | grep -v "^r5.xml$" | grep -q . && echo FOLDER-VISIBLE',
      `echo '<testsuites><testcase name="real"/></testsuites>' > {junit}`,
    ].join('; ')
    const run = await runTestCommand({
      command: forge,
      cwd: dir,
      testFiles: [],
      junitFile: path.join(dir, 'report', 'r5.xml'),
      timeoutMs: 30_000,
      home: path.join(dir, 'home'),
      sandbox: { readOnly: [] },
    })
    expect(run.stdout).toBe('')
    expect([...run.results!.tests.keys()]).toEqual(['real'])
  })
})
