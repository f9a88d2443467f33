import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { HarnessFailure } from '../../../src/errors.ts'
import { runProcess, type RunProcessOptions } from '../../../src/sandbox/process/run-process.ts'
import { type ProcessCommand, type ProcessEnvironment, UNSANDBOXED_HOST } from '../../../src/sandbox/process/environment.ts'
import { processTags } from '../../../src/sandbox/process/tags.ts'
import { processGroupAlive } from '../../../src/sandbox/process/tree.ts'
import { alive } from '../../helpers/alive.ts'

// Real child processes, real signals: a bash leader that starts a sleeping grandchild.

let dir: string
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }

/** One process on the host (the bubblewrap environment is exercised in test/sandbox/agents.test.ts and the oracle's tests). */
function run(options: { file: string; args: readonly string[] } & Omit<RunProcessOptions, 'sandbox'>) {
  const { file, args, ...rest } = options
  return runProcess({ file, args }, { ...rest, sandbox: UNSANDBOXED_HOST })
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'process-test-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('runProcess', () => {
  test('reads stdout line by line, captures stderr and the exit code', async () => {
    const seen: string[] = []
    const result = await run({
      file: 'bash',
      args: ['-c', 'echo one; echo two; echo oops >&2; exit 3'],
      cwd: dir,
      env,
      timeoutMs: 10_000,
      onLine: (line) => seen.push(line),
    })
    expect(seen).toEqual(['one', 'two'])
    expect(result.stdout).toBe('one\ntwo')
    expect(result.stderr).toBe('oops')
    expect(result.exitCode).toBe(3)
    expect(result.timedOut).toBe(false)
    expect(result.signal).toBeNull()
  })

  test('passes only the given environment, and stdin is closed unless input is given', async () => {
    const closed = await run({
      file: 'bash',
      args: ['-c', 'cat; echo "home=${HOME:-unset} path=${PATH:+set}"'],
      cwd: dir,
      env,
      timeoutMs: 10_000,
    })
    expect(closed.stdout).toBe('home=unset path=set')
    const fed = await run({ file: 'bash', args: ['-c', 'cat'], cwd: dir, env, input: 'prompt\n', timeoutMs: 10_000 })
    expect(fed.stdout).toBe('prompt')
  })

  test('runs the agent in a process group of its own', async () => {
    const result = await run({ file: 'bash', args: ['-c', 'ps -o pgid= -p $$'], cwd: dir, env, timeoutMs: 10_000 })
    expect(Number(result.stdout.trim())).toBe(result.pgid)
    expect(result.pgid).not.toBe(process.pid)
  })

  test('a timeout kills the whole group: no grandchild is left alive', async () => {
    const pidFile = path.join(dir, 'grandchild.pid')
    const result = await run({
      file: 'bash',
      // The grandchild ignores SIGTERM, so only the SIGKILL after the grace period ends it.
      args: ['-c', `bash -c 'trap "" TERM; sleep 60' & echo $! > ${pidFile}; echo started; wait`],
      cwd: dir,
      env,
      timeoutMs: 500,
      killGraceMs: 300,
    })
    const grandchild = Number((await readFile(pidFile, 'utf8')).trim())
    expect(result.timedOut).toBe(true)
    expect(result.stdout).toBe('started')
    expect(result.wallMs).toBeGreaterThanOrEqual(500)
    expect(alive(grandchild)).toBe(false)
    expect(processGroupAlive(result.pgid!)).toBe(false)
  })

  test('an abort kills the whole group', async () => {
    const pidFile = path.join(dir, 'grandchild.pid')
    const controller = new AbortController()
    const running = run({
      file: 'bash',
      args: ['-c', `sleep 60 & echo $! > ${pidFile}; echo started; wait`],
      cwd: dir,
      env,
      timeoutMs: 60_000,
      signal: controller.signal,
      onLine: () => controller.abort(),
    })
    const result = await running
    const grandchild = Number((await readFile(pidFile, 'utf8')).trim())
    expect(result.aborted).toBe(true)
    expect(result.timedOut).toBe(false)
    expect(result.signal).toBe('SIGTERM')
    expect(alive(grandchild)).toBe(false)
  })

  test('a straggler left running after the leader exits is killed too', async () => {
    const pidFile = path.join(dir, 'straggler.pid')
    const result = await run({
      file: 'bash',
      args: ['-c', `(sleep 60 >/dev/null 2>&1 &  echo $! > ${pidFile}); echo done`],
      cwd: dir,
      env,
      timeoutMs: 20_000,
    })
    const straggler = Number((await readFile(pidFile, 'utf8')).trim())
    expect(result.exitCode).toBe(0)
    expect(result.timedOut).toBe(false)
    expect(result.wallMs).toBeLessThan(10_000)
    expect(alive(straggler)).toBe(false)
  })

  test("a descendant that left the group with setsid (as Claude Code's hooks do) is found by the run's tag and killed", async () => {
    const pidFile = path.join(dir, 'escaped.pid')
    const result = await run({
      file: 'bash',
      args: ['-c', `setsid bash -c 'echo $$ > ${pidFile}; exec sleep 60' >/dev/null 2>&1 < /dev/null & sleep 0.3; echo started; sleep 60`],
      cwd: dir,
      env,
      timeoutMs: 1000,
      killGraceMs: 300,
    })
    const escaped = Number((await readFile(pidFile, 'utf8')).trim())
    expect(result.timedOut).toBe(true)
    expect(escaped).toBeGreaterThan(1)
    expect(alive(escaped)).toBe(false)
    expect(processGroupAlive(result.pgid!, result.tag)).toBe(false)
  })

  test('an executable that cannot be started is a harness failure (crash), not retried, naming what failed', async () => {
    const file = path.join(dir, 'no-such-agent')
    const error = await run({ file, args: [], cwd: dir, env, timeoutMs: 5_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HarnessFailure)
    expect((error as HarnessFailure).reason).toBe('crash')
    expect((error as HarnessFailure).retryable).toBe(false)
    expect((error as HarnessFailure).message).toBe(`could not start ${file}: spawn ${file} ENOENT`)
    expect((error as HarnessFailure).cause).toMatchObject({ failed: true, code: 'ENOENT' })
  })

  test('a leader ended by a signal of its own is that signal, not a crash, a timeout or an abort', async () => {
    const result = await run({ file: 'bash', args: ['-c', 'echo before; kill -KILL $$'], cwd: dir, env, timeoutMs: 10_000 })
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false, aborted: false, stdout: 'before' })
  })

  test('asks its environment for the line with the command, its folder, the variables and the run’s tags, and only the options given', async () => {
    const asked: ProcessCommand[] = []
    /** The host, recording what each process asked it for. */
    const recording: ProcessEnvironment = {
      label: 'recording host',
      startLine: (command) => {
        asked.push(command)
        return UNSANDBOXED_HOST.startLine(command)
      },
    }
    const plain = await runProcess({ file: 'bash', args: ['-c', 'true'] }, { sandbox: recording, cwd: dir, env: { ...env, MINE: '1' }, timeoutMs: 10_000 })
    const given = { loopbackPorts: [8080], readOnly: ['/opt/ro'], writable: ['/opt/rw'], network: false }
    await runProcess({ file: 'bash', args: ['-c', 'true'] }, { sandbox: recording, cwd: dir, env, timeoutMs: 10_000, ...given })
    expect(asked[0]).toStrictEqual({ file: 'bash', args: ['-c', 'true'], cwd: dir, env: { ...env, MINE: '1', ...processTags(plain.tag) } })
    expect(asked[1]).toMatchObject(given)
    expect(Object.keys(asked[1]!).sort()).toStrictEqual(['args', 'cwd', 'env', 'file', 'loopbackPorts', 'network', 'readOnly', 'writable'])
  })

  test('a run that printed within its limit is not truncated, and its wall time is what it took', async () => {
    const before = performance.now()
    const result = await run({ file: 'bash', args: ['-c', 'sleep 0.2; echo done'], cwd: dir, env, timeoutMs: 10_000 })
    const took = performance.now() - before
    expect(result.truncated).toBe(false)
    expect(result.wallMs).toBeGreaterThanOrEqual(200)
    expect(result.wallMs).toBeLessThanOrEqual(took)
  })

  test('keeps each stream apart and both interleaved in arrival order; a final line break is dropped unless asked to keep it', async () => {
    const script = 'printf "out1\\n"; sleep 0.2; printf "err1\\n" >&2; sleep 0.2; printf "out2\\n"'
    const stripped = await run({ file: 'bash', args: ['-c', script], cwd: dir, env, timeoutMs: 10_000 })
    expect(stripped.stdout).toBe('out1\nout2')
    expect(stripped.stderr).toBe('err1')
    expect(stripped.all).toBe('out1\nerr1\nout2')
    const kept = await run({ file: 'bash', args: ['-c', script], cwd: dir, env, timeoutMs: 10_000, stripFinalNewline: false })
    expect(kept.stdout).toBe('out1\nout2\n')
    expect(kept.all).toBe('out1\nerr1\nout2\n')
  })

  test('a process that prints without end is cut at maxChars (the head kept) while its lines still reach the callback', async () => {
    let lines = 0
    const result = await run({
      file: 'bash',
      args: ['-c', 'for i in $(seq 1 2000); do echo line-$i; done'],
      cwd: dir,
      env,
      timeoutMs: 10_000,
      maxChars: 100,
      onLine: () => lines++,
    })
    expect(result.truncated).toBe(true)
    expect(result.stdout.length).toBeLessThanOrEqual(100)
    expect(result.stdout.startsWith('line-1\nline-2\n')).toBe(true)
    expect(lines).toBe(2000)
  })

  test("every process carries the run's tag, and the invocation's tag when the harness has one", async () => {
    const before = process.env.TASK_OUTCOME_SESSION
    process.env.TASK_OUTCOME_SESSION = 'session-under-test'
    try {
      const result = await run({ file: 'bash', args: ['-c', 'echo "$TASK_OUTCOME_RUN_TAG $TASK_OUTCOME_SESSION"'], cwd: dir, env, timeoutMs: 10_000 })
      expect(result.stdout).toBe(`${result.tag} session-under-test`)
    } finally {
      if (before === undefined) delete process.env.TASK_OUTCOME_SESSION
      else process.env.TASK_OUTCOME_SESSION = before
    }
  })

  test('without a timeout the process runs to its end', async () => {
    const result = await run({ file: 'bash', args: ['-c', 'sleep 0.3; echo late'], cwd: dir, env })
    expect(result.stdout).toBe('late')
    expect(result.timedOut).toBe(false)
  })
})
