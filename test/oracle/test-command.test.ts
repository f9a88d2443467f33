import { lstat, mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest'
import { SpecError } from '../../src/errors.ts'
import { checkTestCommand, fillTestCommand, runTestCommand, shellQuote, testCommandEnv } from '../../src/oracle/test-command.ts'
import { mountPlainCopy, type MountedOverlay } from '../../src/sandbox/index.ts'

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

describe("the test command's environment", () => {
  const fixed = { TZ: 'UTC', CI: '1', NO_COLOR: '1', PYTHONDONTWRITEBYTECODE: '1' }
  test.each<[string, Record<string, string | undefined>, Record<string, string>]>([
    ['a bare host: the default PATH and locale, no pyenv', {}, { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' }],
    ["the host's PATH and locale", { PATH: '/opt/bin', LANG: 'de_DE.UTF-8' }, { PATH: '/opt/bin', LANG: 'de_DE.UTF-8' }],
    ["the host's HOME only to find pyenv", { PATH: '/bin', HOME: '/root' }, { PATH: '/bin', LANG: 'C.UTF-8', PYENV_ROOT: '/root/.pyenv' }],
    [
      "the host's LC_ALL, PYENV_ROOT, PYENV_VERSION and TMPDIR as they are",
      { PATH: '/bin', HOME: '/root', LC_ALL: 'C', PYENV_ROOT: '/opt/pyenv', PYENV_VERSION: '3.12', TMPDIR: '/var/tmp', USER: 'root' },
      { PATH: '/bin', LANG: 'C.UTF-8', LC_ALL: 'C', PYENV_ROOT: '/opt/pyenv', PYENV_VERSION: '3.12', TMPDIR: '/var/tmp' },
    ],
  ])('from %s', (_what, host, expected) => {
    expect(testCommandEnv('/scratch/home', host)).toStrictEqual({ ...expected, ...fixed, HOME: '/scratch/home' })
  })

  test('a template that names where the report goes is accepted', () => {
    expect(() => checkTestCommand('pytest {tests} --junitxml={junit}', '--test-command')).not.toThrow()
  })

  test.each([
    ['tests/a_test.py', 'tests/a_test.py'],
    ['A-Za_z0.9@%+=:,/x', 'A-Za_z0.9@%+=:,/x'],
    ['a b', "'a b'"],
    ['$HOME', "'$HOME'"],
    ['', "''"],
    ["it's", "'it'\\''s'"],
    ["''", "''\\'''\\'''"],
  ])('quotes %j for bash as %j', (word, quoted) => {
    expect(shellQuote(word)).toBe(quoted)
  })
})

/** What `printenv` printed, as a record. */
const printed = (stdout: string) => Object.fromEntries(stdout.split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))

const REPORT = (name: string) => `echo '<testsuites><testsuite name="s"><testcase classname="s" name="${name}"/></testsuite></testsuites>' > {junit}`

describe('one run of the test command, on the host', () => {
  const run = (options: Partial<Parameters<typeof runTestCommand>[0]> & { command: string }) =>
    runTestCommand({ cwd: dir, testFiles: [], junitFile: path.join(dir, 'reports', 'r.xml'), timeoutMs: 20_000, home: path.join(dir, 'home'), ...options })

  test('reads the report it wrote: the results, the command line, its exit status and output, and how long each part took', async () => {
    const before = performance.now()
    const done = await run({ command: `echo out; ${REPORT('adds')}; exit 1`, testFiles: ['tests/a b.py'] })
    const wall = performance.now() - before
    expect(done.noResults).toBeNull()
    expect([...done.results!.tests.keys()]).toEqual(['s > adds'])
    expect(done.commandLine).toBe(`echo out; ${REPORT('adds').replace('{junit}', path.join(dir, 'reports', 'r.xml'))}; exit 1`)
    expect(done).toMatchObject({ exitCode: 1, timedOut: false, stdout: 'out', stderr: '' })
    for (const ms of [done.durationMs, done.preparedMs]) {
      expect(ms).toBeGreaterThanOrEqual(0)
      expect(ms).toBeLessThanOrEqual(wall)
    }
  })

  test('reads the report with the ids relative to the working folder', async () => {
    const done = await run({
      command: `echo '<testsuites><testsuite name="s"><testcase classname="${dir}/tests/a.py" name="test_b" file="${dir}/tests/a.py"/></testsuite></testsuites>' > {junit}`,
    })
    expect([...done.results!.tests.keys()]).toEqual(['tests/a.py::tests/a.py::test_b'])
  })

  test('exit status 0 is kept as 0; a command its own signal ended has none, and the reason names the signal', async () => {
    expect((await run({ command: REPORT('ok') })).exitCode).toBe(0)
    const killed = await run({ command: 'kill -9 $$ # {junit}' })
    expect(killed.exitCode).toBeNull()
    expect(killed.noResults).toBe('the test command exited on signal SIGKILL without writing a JUnit report')
  })

  test('a report the command removed, or one of blank lines only, is no report', async () => {
    expect((await run({ command: 'rm -f {junit}' })).noResults).toBe('the test command exited 0 without writing a JUnit report')
    expect((await run({ command: "printf '\\n \\n' > {junit}" })).noResults).toBe('the test command exited 0 without writing a JUnit report')
  })

  test('a stale report from an earlier run is removed first, and the report is written where asked', async () => {
    await run({ command: REPORT('first') })
    const second = await run({ command: 'true # {junit}' })
    expect(second.noResults).toBe('the test command exited 0 without writing a JUnit report')
  })

  test("gets the oracle's PATH, preload and PYTHONPATH when given, and the bash that PATH finds", async () => {
    const bin = path.join(dir, 'oracle-bin')
    await mkdir(bin, { recursive: true })
    await writeFile(path.join(bin, 'bash'), `#!/bin/sh\necho "the oracle's bash" >&2\nexec /bin/bash "$@"\n`, { mode: 0o755 })
    const done = await run({ command: 'printenv # {junit}', pathVariable: `${bin}:/usr/bin:/bin`, preload: '/oracle/preload.cjs', pythonPath: '/oracle/python' })
    expect(printed(done.stdout)).toMatchObject({
      PATH: `${bin}:/usr/bin:/bin`,
      NODE_OPTIONS: '--require="/oracle/preload.cjs"',
      PYTHONPATH: '/oracle/python',
      HOME: path.join(dir, 'home'),
    })
    expect(done.stderr).toBe("the oracle's bash")
  })

  test("without them, the host's PATH, no preload and no PYTHONPATH; TMPDIR as the host has it", async () => {
    const env = printed((await run({ command: 'printenv # {junit}' })).stdout)
    expect(env.PATH).toBe(process.env.PATH)
    expect(env.TMPDIR).toBe(process.env.TMPDIR)
    expect(env).not.toHaveProperty('NODE_OPTIONS')
    expect(env).not.toHaveProperty('PYTHONPATH')
  })

  test('stops at the abort signal, well before its timeout', async () => {
    const before = performance.now()
    const done = await run({ command: 'sleep 30 # {junit}', signal: AbortSignal.timeout(200) })
    expect(performance.now() - before).toBeLessThan(15_000)
    expect(done.timedOut).toBe(false)
    expect(done.noResults).toMatch(/without writing a JUnit report$/)
  })

  test('runs a Vitest command with the harness config, written beside HOME', async () => {
    const done = await run({ command: 'echo vitest run # {junit}' })
    const config = `${path.join(dir, 'home')}-vitest/vitest.oracle.config.mjs`
    expect(done.stdout).toBe(`vitest run --config=${config} --configLoader=native`)
    await expect(readFile(config, 'utf8')).resolves.toContain('oracle-vitest-setup.mjs')
  })

  test('links the prepared dependency folder into the tree', async () => {
    const deps = path.join(dir, 'deps-folder')
    await mkdir(path.join(deps, 'pkg'), { recursive: true })
    const done = await run({ command: 'ls node_modules # {junit}', dependencies: { folder: deps, mount: 'node_modules', key: 'deps-x', store: deps, inputs: {} } })
    expect(done.stdout).toBe('pkg')
    expect(await readlink(path.join(dir, 'node_modules'))).toBe(deps)
  })

  test('refuses an overlay without a sandbox: only a sandboxed command enters one', async () => {
    const overlay = { hostPath: dir } as unknown as MountedOverlay
    await expect(run({ command: 'true # {junit}', overlay })).rejects.toThrow('runTestCommand: an overlay is entered only by a sandboxed test command')
  })
})

describe('one run of the test command, in a sandbox', () => {
  test('sees the tree, HOME and the report writable, the read-only folders, preload, PYTHONPATH and Vitest harness, with TMPDIR /tmp', async () => {
    const tree = path.join(dir, 'sandboxed-tree')
    const shared = path.join(dir, 'shared')
    const oracle = path.join(dir, 'oracle')
    const python = path.join(dir, 'oracle-python')
    await Promise.all([mkdir(tree, { recursive: true }), mkdir(shared, { recursive: true }), mkdir(oracle, { recursive: true }), mkdir(python, { recursive: true })])
    await writeFile(path.join(shared, 'data.txt'), 'shared\n')
    await writeFile(path.join(oracle, 'preload.cjs'), '')
    const home = path.join(dir, 'sandboxed-home')
    const check = (label: string, test: string) => `${test} && echo ${label}`
    const command = [
      'f() { c="${3#--config=}"; test -f "$c" && echo HARNESS; }; f vitest run ',
      check('SHARED', `test "$(cat ${shared}/data.txt)" = shared`),
      check('PRELOAD', `test -f ${oracle}/preload.cjs`),
      check('PYTHONPATH', 'test -d "$PYTHONPATH"'),
      check('TREE', 'touch written'),
      check('HOME', 'touch "$HOME/x"'),
      'echo "TMPDIR=$TMPDIR"',
      REPORT('real'),
    ].join('; ')
    const done = await runTestCommand({
      command,
      cwd: tree,
      testFiles: [],
      junitFile: path.join(dir, 'sandboxed-report', 'r.xml'),
      timeoutMs: 30_000,
      home,
      sandbox: { readOnly: [shared] },
      preload: path.join(oracle, 'preload.cjs'),
      pythonPath: python,
    })
    expect(done.stdout.split('\n')).toEqual(['HARNESS', 'SHARED', 'PRELOAD', 'PYTHONPATH', 'TREE', 'HOME', 'TMPDIR=/tmp'])
    expect([...done.results!.tests.keys()]).toEqual(['s > real'])
    await expect(readFile(path.join(tree, 'written'), 'utf8')).resolves.toBe('')
    await expect(readFile(path.join(home, 'x'), 'utf8')).resolves.toBe('')
  })

  test('sees the prepared dependency folder mounted read-only where the tree has its mount point', async () => {
    const tree = path.join(dir, 'deps-tree')
    const deps = path.join(dir, 'sandboxed-deps')
    await Promise.all([mkdir(tree, { recursive: true }), mkdir(path.join(deps, 'pkg'), { recursive: true })])
    const done = await runTestCommand({
      command: 'ls node_modules; touch node_modules/new 2>/dev/null && echo WRITABLE; true # {junit}',
      cwd: tree,
      testFiles: [],
      junitFile: path.join(dir, 'deps-report', 'r.xml'),
      timeoutMs: 30_000,
      home: path.join(dir, 'deps-home'),
      sandbox: { readOnly: [] },
      dependencies: { folder: deps, mount: 'node_modules', key: 'deps-x', store: deps, inputs: {} },
    })
    expect(done.stdout).toBe('pkg')
    expect((await lstat(path.join(tree, 'node_modules'))).isDirectory()).toBe(true)
  })

  test('runs /bin/bash, never a bash of the PATH it gives the command', async () => {
    const bin = path.join(dir, 'sandboxed-bin')
    const tree = path.join(dir, 'bash-tree')
    await Promise.all([mkdir(bin, { recursive: true }), mkdir(tree, { recursive: true })])
    await writeFile(path.join(bin, 'bash'), `#!/bin/sh\necho "a bash of the PATH"\nexec /bin/bash "$@"\n`, { mode: 0o755 })
    const done = await runTestCommand({
      command: `echo "$PATH"; ${REPORT('bash')}`,
      cwd: tree,
      testFiles: [],
      junitFile: path.join(dir, 'bash-report', 'r.xml'),
      timeoutMs: 30_000,
      home: path.join(dir, 'bash-home'),
      sandbox: { readOnly: [bin] },
      pathVariable: `${bin}:/usr/bin:/bin`,
    })
    expect(done.stdout).toBe(`${bin}:/usr/bin:/bin`)
  })

  test("in an overlay under a disk limit: HOME and the report on its tmpfs, the tree at the overlay's mount point, what the harness wrote handed over", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'test-command-overlay-'))
    const target = path.join(root, 'tree')
    const overlay = await mountPlainCopy({ upper: path.join(root, 'layers', 'upper'), work: path.join(root, 'layers', 'work'), target }, { diskMb: 16 })
    try {
      await writeFile(path.join(overlay.hostPath, 'harness.txt'), 'from the harness\n')
      const home = path.join(root, 'home')
      const junitFile = path.join(root, 'report', 'r.xml')
      const done = await runTestCommand({
        command: `cat harness.txt; echo more >> harness.txt && echo HANDED-OVER; touch "$HOME/x" && echo HOME; pwd; ${REPORT('in-overlay')}`,
        cwd: target,
        overlay,
        testFiles: [],
        junitFile,
        timeoutMs: 30_000,
        home,
        sandbox: { readOnly: [] },
      })
      expect(done.stdout.split('\n')).toEqual(['from the harness', 'HANDED-OVER', 'HOME', target])
      const silent = await runTestCommand({ command: 'true # {junit}', cwd: target, overlay, testFiles: [], junitFile, timeoutMs: 30_000, home, sandbox: { readOnly: [] } })
      expect(silent.noResults).toBe('the test command exited 0 without writing a JUnit report')
      expect([...done.results!.tests.keys()]).toEqual(['s > in-overlay'])
      // The report and HOME were written on the tmpfs: the host's files at those paths stay empty.
      expect(await readFile(junitFile, 'utf8')).toBe('')
      await expect(readFile(path.join(home, 'x'))).rejects.toThrow()
    } finally {
      await overlay.release()
      await rm(root, { recursive: true, force: true })
    }
  })
})
